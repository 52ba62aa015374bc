// Before any test: is the target there, is it this API, does it accept the token, and does every setting that can be
// read without writing name something the target has? A wrong setting is a configuration error, never a failure of
// the target: the run stops with one message naming the variable, its value and what the target answered.
import { randomInt } from 'node:crypto';
import type { DataConfig } from '../config/settings/data';
import type { RecognitionConfig } from '../config/settings/recognition';
import type { ReferenceConfig } from '../config/settings/reference';
import type { TargetConfig } from '../config/settings/target';
import type { Delivery } from '../http/delivery';
import {
  type Exchange,
  type OutgoingRequest,
  type SendOptions,
  exchangeOf,
  parseBody,
  plainString,
} from '../http/exchange';
import { outgoingRequest } from '../http/request';
import { Transport } from '../http/transport';
import { runState } from '../http/run-state';
import { answeredInFront, bodyInLine, challengeShown, throttledMessage } from '../http/presentation';
import { validBodies } from '../model/bodies';
import { OPERATIONS, type Operation, type OperationName, operationLabel } from '../model/operations';
import { errorMarker, outcomeOf } from './outcome';
import { redact } from '../http/redact';
import { proxyRoute } from '../http/proxy';
import { apiBase, transportOptions } from '../config/target';
import { EXCERPT_CHARS, answerOf, isPriceList, readPriceListAnswer, redirectProblem } from './price-list-answer';
import { NOT_UP_KINDS, waitAdvice, waitForTarget } from './wait-for-target';

/** What the preflight reads: the target, the data it can check without writing, the patterns that read answers. */
type PreflightConfig = TargetConfig &
  DataConfig &
  RecognitionConfig &
  Pick<ReferenceConfig, 'referenceMode' | 'referenceFault' | 'referenceLatencyMs'>;

export class PreflightError extends Error {
  override name = 'PreflightError';
}

/** The preflight runs before any test: it may wait this long in all for a throttling target. */
const PREFLIGHT_RETRY_BUDGET_MS = 60_000;

const HEADING = 'Preflight failed, so no test was run.';

/** A resource that settings name, read with operation `operation`, that must exist (or, for one, must not). */
interface ResourceRead {
  /** "RSF_ORDER_BRANCH=1, RSF_ORDER_ALB_NUMBER=123456", or a value of a list setting. */
  settings: string[];
  operation: OperationName;
  params: Record<string, string | number>;
  query?: string;
  /** A write's body: sent only when writes are on, and the very request the tests send (so it changes nothing more). */
  body?: Record<string, unknown>;
  expect: 'present' | 'missing';
  /** What it should name, for the advice: "an order the target has". */
  names: string;
  /**
   * For a resource that must be missing and was found: the params of one that no target has. Found as well, the
   * target finds whatever it is asked for, and the setting is not to blame: the tests judge that.
   */
  control?: Record<string, string | number>;
  /**
   * For a write refused: the same body with one value changed to another the spec allows (hide's other boolean). Taken
   * so, the target refuses a valid value, not the settings' resource: the run stops naming that, not the settings.
   */
  otherValue?: { body: Record<string, unknown>; said: string };
}

/** A product id of 12 random digits: a control that no catalogue has. */
const madeUpProductId = (): string => String(randomInt(10 ** 11, 10 ** 12));

/**
 * The settings that operations 8, 10, 11 and 14 can check without writing, one read per distinct request; with writes
 * on, also those that only the updates of operations 3 and 4 can check.
 */
function resourceReads(config: DataConfig & Pick<TargetConfig, 'writesEnabled'>): ResourceRead[] {
  const product = (productId: string | number) => ({
    params: { product_id: productId },
    query: config.productDetailQuery,
  });
  const reads: ResourceRead[] = [
    {
      settings: [`RSF_PRODUCT_ID=${config.productId}`],
      operation: 'getProduct',
      ...product(config.productId),
      expect: 'present',
      names: 'a product the target has',
    },
    ...config.stockProductIds.map(
      (id): ResourceRead => ({
        settings: [`${id} of RSF_STOCK_PRODUCT_IDS=${config.stockProductIds.join(',')}`],
        operation: 'getProduct',
        ...product(id),
        expect: 'present',
        names: 'products the target has',
      }),
    ),
    {
      settings: [`RSF_CART_PRODUCT_ID=${config.cartProductId}`],
      operation: 'getProduct',
      ...product(config.cartProductId),
      expect: 'present',
      names: 'a product the target has',
    },
    {
      settings: [`RSF_MISSING_PRODUCT_ID=${config.missingProductId}`],
      operation: 'getProduct',
      ...product(config.missingProductId),
      expect: 'missing',
      names: 'a product the target does not have',
      control: product(madeUpProductId()).params,
    },
    {
      settings: [`RSF_ORDER_BRANCH=${config.orderBranch}`, `RSF_ORDER_ALB_NUMBER=${config.orderAlbNumber}`],
      operation: 'getOrder',
      params: { branch: config.orderBranch, albNumber: config.orderAlbNumber },
      expect: 'present',
      names: 'an order the target has',
    },
    {
      settings: [`RSF_VOUCHER_BRANCH=${config.voucherBranch}`, `RSF_VOUCHER_ORDER=${config.voucherOrder}`],
      operation: 'getPaymentVoucher',
      params: { branch: config.voucherBranch, order: config.voucherOrder },
      expect: 'present',
      names: 'a payment voucher the target has',
    },
    {
      settings: [`RSF_POSTSALE_ID=${config.postSaleId}`],
      operation: 'getMessageChannel',
      params: { postsaleInboundId: config.postSaleId },
      expect: 'present',
      names: 'a post-sale channel the target has',
    },
    ...(config.writesEnabled ? writeChecks(config) : []),
  ];
  // The product id is often one of the stock ids too: one request, every setting named.
  const byRequest = new Map<string, ResourceRead>();
  for (const read of reads) {
    const key = `${read.operation} ${JSON.stringify(read.params)} ${JSON.stringify(read.body)} ${read.expect}`;
    const seen = byRequest.get(key);
    if (seen) seen.settings.push(...read.settings);
    else byRequest.set(key, { ...read, settings: [...read.settings] });
  }
  return [...byRequest.values()];
}

/**
 * For an id whose JSON type the spec leaves open (§4.3's placeId, §4.4's categoryId), written as the other type would
 * be refused by a target that types it (indep107: "10" to a C# int): the value in the other type, to try.
 */
function otherTypeNote(setting: string, value: unknown, field: string, section: string): string {
  const other =
    typeof value === 'string' && /^-?\d+$/.test(value.trim())
      ? Number(value)
      : typeof value === 'number'
        ? String(value)
        : undefined;
  if (other === undefined) return '';
  const what = typeof value === 'string' ? 'a JSON string' : 'a JSON number';
  return (
    `; ${setting} is ${what} (${JSON.stringify(value)}), and ${section} leaves ${field}'s type open: ` +
    `a target that takes the other refuses it, so try ${JSON.stringify(other)}`
  );
}

/** The updates (operations 3 and 4) that the tests send first: a refusal there means the settings name nothing. */
function writeChecks(config: DataConfig): ResourceRead[] {
  const bodies = validBodies(config);
  const shown = (value: unknown): string => JSON.stringify(value);
  const category = bodies.categoryUpdate();
  const { hide } = category;
  return [
    {
      settings: [`RSF_CATEGORY_ID=${shown(config.categoryId)}`, `RSF_CATEGORY_FIELDS=${shown(config.categoryFields)}`],
      operation: 'updateCategory',
      params: {},
      body: category,
      // indep110, indep118: a validator that reads false as missing (`!body.hide`, Go's `binding:"required"`).
      ...(typeof hide === 'boolean' && {
        otherValue: {
          body: { ...category, hide: !hide },
          said:
            `with hide ${hide} refused, and with hide ${!hide} carried out: the target refuses one of the two values ` +
            '§4.4 allows hide (a boolean, both required in every update), not the category. RSF_CATEGORY_FIELDS with ' +
            `hide ${!hide} lets the run go on, and its reports then show the refusal of hide ${hide} among the valid ` +
            'inputs refused',
        },
      }),
      expect: 'present',
      names:
        'a personal category of the account, and fields it accepts (writes are on: sent as the tests send it)' +
        otherTypeNote('RSF_CATEGORY_ID', config.categoryId, 'categoryId', '§4.4') +
        // indep110: a target that took hide: false for missing ("!body.hide") blamed the settings alone.
        '; if they name such a category, the target refused an update with every field §4.4 requires, whatever ' +
        'the value of each (hide false as well as true): its answer says why',
    },
    {
      settings: [
        `RSF_ADDRESS_ID=${config.addressId}`,
        `RSF_ADDRESS_FIELDS=${shown(config.addressFields)}`,
        `RSF_PLACE_ID=${shown(config.placeId)}`,
      ],
      operation: 'updateShippingAddress',
      params: {},
      body: bodies.addressUpdate(),
      expect: 'present',
      names:
        'a shipping address of the account, and fields it accepts (writes are on: sent as the tests send it)' +
        otherTypeNote('RSF_PLACE_ID', config.placeId, 'placeId', '§4.3') +
        // No value of the settings mends a target that refuses a valid update (indep108: "provinceId is mandatory").
        '; if they name such an address, the target refused an update with every field §4.3 requires, which §4.3 ' +
        'lists no reason to refuse',
    },
  ];
}

/**
 * A preflight request with the valid token, built as the tests build theirs (outgoingRequest), but without the
 * operation's label: the breaker counts a preflight failure by its request line, not in the operation's record.
 */
function outgoing(operation: Operation, options: SendOptions, config: PreflightConfig, base: string): OutgoingRequest {
  const { operation: _label, ...request } = outgoingRequest(
    operation,
    { ...options, credentials: 'valid' },
    config,
    base,
  );
  return request;
}

/** The exchange of a preflight request that was answered: judged, as the tests judge theirs, as sent with the token. */
function answered(
  operation: Operation,
  request: OutgoingRequest,
  { response, attempts }: Extract<Delivery, { kind: 'answer' }>,
  config: Pick<TargetConfig, 'maxResponseBytes'>,
): Exchange {
  return exchangeOf(operation, 'valid', request, response, attempts, config.maxResponseBytes);
}

/** An answer that says "no such thing": not a 2xx, or a 2xx with an error body (§7.3: errors may come with 200). */
function isRefusal(exchange: Exchange, config: RecognitionConfig): boolean {
  if (exchange.status < 200 || exchange.status > 299) return true;
  if (exchange.truncated) return false; // too large to be an error message: the tests judge it
  if (errorMarker(exchange.body.kind === 'json' ? exchange.body.value : undefined)) return true;
  const text = plainString(exchange.body);
  return text !== undefined && config.rejectionText.test(text);
}

/** Why a resource read stops the run, or undefined when the setting names what it should. */
function resourceProblem(read: ResourceRead, exchange: Exchange, config: RecognitionConfig): string | undefined {
  const { number, section } = exchange.operation;
  const request = `${exchange.request.method} ${exchange.request.url} (operation ${number}, §${section})`;
  const which = read.settings.join(', ');
  if (read.expect === 'missing') {
    if (!outcomeOf(exchange, config).succeeded) return undefined;
    return `${which}: ${request} found it, ${answerOf(exchange, 120)}. Set it to ${read.names}.`;
  }
  // A body that is not an error but not the documented shape either is for the tests to judge, not a wrong setting.
  if (outcomeOf(exchange, config).succeeded || !isRefusal(exchange, config)) return undefined;
  return `${which}: ${request} answered ${answerOf(exchange)}. Set it to ${read.names}.`;
}

/**
 * A read of a setting's resource that the target failed on (HTTP 5xx, a gateway's after its retries): the target is
 * failing. The settings are named as a possible cause only, for a server that fails on data it does not have.
 */
function serverError(read: ResourceRead, exchange: Exchange): string {
  const { number, section } = exchange.operation;
  const body = bodyInLine(exchange, EXCERPT_CHARS);
  return (
    `HTTP ${exchange.status} (operation ${number}, §${section}): the target is failing. Body: ${body}\n` +
    `  The request carries ${read.settings.join(', ')}: if the target fails on data it does not have, set it to ` +
    `${read.names}.`
  );
}

type Unanswered = Exclude<Delivery, { kind: 'answer' | 'unavailable' }>;

/** The preflight names a failing target by what it answered: a gateway's error is read as the answer it is. */
function answeredByGateway(delivery: Delivery): Exclude<Delivery, { kind: 'unavailable' }> {
  if (delivery.kind !== 'unavailable') return delivery;
  return { kind: 'answer', response: delivery.response, attempts: delivery.attempts };
}

/**
 * Why the request to `url` had no answer to judge: throttled throughout, or none at all. Only a time-out names
 * RSF_REQUEST_TIMEOUT_MS: a refused connection or an unknown host is no matter of waiting longer. A proxy it went
 * through is named too. `afterPriceList`: the target had answered the price list, so RSF_TARGET_URL is not in doubt.
 */
function transportProblem(
  delivery: Unanswered,
  label: string,
  url: string,
  config: Pick<TargetConfig, 'requestTimeoutMs' | 'proxy'>,
  afterPriceList = false,
): string {
  if (delivery.kind === 'throttled') return throttledMessage(label, delivery);
  const route = proxyRoute(new URL(url), config.proxy);
  const through = route ? ` It went through the proxy in ${route.variable}: check that one too.` : '';
  const check = `\n  Check RSF_TARGET_URL, and that the server is up.${through}`;
  if (delivery.kind === 'not-sent') return `The target had stopped answering.${check}`;
  const { kind, message } = delivery.failure;
  // localhost that resolved to IPv4 alone: a server listening on ::1 only is not there (curl tries both, Node not).
  const ipv6 = new URL(url);
  if (kind === 'refused' && ipv6.hostname === 'localhost' && !message.includes('[::1]')) {
    ipv6.hostname = '[::1]';
    return (
      `The target gave no complete HTTP answer: ${message}${check}\n  localhost named no IPv6 address here: a ` +
      `server listening on ::1 alone is reached at ${ipv6.origin} (write that in RSF_TARGET_URL).`
    );
  }
  const waited = `The target did not answer within RSF_REQUEST_TIMEOUT_MS=${config.requestTimeoutMs}: ${message}`;
  // The URL and the server are not in doubt: the reads side by side may wait for each other (indep111: one thread
  // that serves a kept-alive connection until the client lets it go).
  if (kind === 'timeout' && afterPriceList)
    return (
      `${waited}\n  It answered the price list: the URL is right and the server up. The preflight reads these ` +
      'side by side, and a read beside others may wait: behind a server that serves one kept-alive connection at ' +
      'a time (RSF_KEEP_ALIVE=false sends each request on a connection of its own, closed after its answer), or for ' +
      'an instance of its own to start cold (a serverless target: RSF_REQUEST_TIMEOUT_MS above its longest cold ' +
      `start, indep114). See docs/running.md, "Gateways, firewalls, slow servers and dying targets".${through}`
    );
  if (kind === 'timeout') return `${waited}${check}`;
  // Not as far as HTTP: a name that does not resolve, TLS, a proxy.
  if (kind === 'other') return `The request got no answer: ${message}${check}`;
  // The certificate's trouble has its remedy in the message: the URL and the server are not in doubt (indep96).
  if (kind === 'certificate') return `The request got no answer: ${message}.${through}`;
  // An HTTP answer whose body its Content-Encoding does not decode: the server is up, and answered.
  if (kind === 'unreadable-body') return `The target's answer could not be read: ${message}.${through}`;
  if (kind === 'not-http' && afterPriceList)
    return (
      `The target gave no complete HTTP answer: ${message}\n  It answered the price list in HTTP: this answer breaks ` +
      `HTTP/1.1 on ${label} alone (the target's, or that of something in front of it).${through}`
    );
  return `The target gave no complete HTTP answer: ${message}${check}`;
}

/** GET /prices with the token: the diagnoses of a target that is not this API, or refuses the token. */
async function checkPrices(
  transport: Transport,
  config: PreflightConfig,
  base: string,
  onWait: (message: string) => void,
  waited: boolean,
): Promise<void> {
  const request = outgoing(OPERATIONS.listPrices, {}, config, base);
  const { url } = request;
  const fail = (why: string): never => {
    throw new PreflightError(redact(`${HEADING}\n  GET ${url}\n  ${why}`));
  };
  if (!waited) await waitForTarget(request, transport.options, config.waitForTargetMs, onWait);
  const delivery = answeredByGateway(await transport.deliver(request, PREFLIGHT_RETRY_BUDGET_MS));
  if (delivery.kind !== 'answer') {
    const notUp = delivery.kind === 'no-answer' && NOT_UP_KINDS.includes(delivery.failure.kind);
    return fail(transportProblem(delivery, `GET ${url}`, url, config) + waitAdvice(notUp, config));
  }
  const exchange = answered(OPERATIONS.listPrices, request, delivery, config);
  const reading = readPriceListAnswer(exchange, delivery.response.headers, config);
  if (reading.kind === 'stop') fail(reading.why);
  if (reading.kind === 'no API') fail(reading.why + (await servedWithoutV1(transport, config, base)));
}

/**
 * After a 404 or 405 under /v1: whether the price list is served without /v1, which §9 requires (GEN-V1-PREFIX); a
 * sentence for the message if so. One request more, on a path that leads nowhere else.
 */
async function servedWithoutV1(transport: Transport, config: PreflightConfig, base: string): Promise<string> {
  if (!base.endsWith('/v1')) return '';
  const request = outgoing(OPERATIONS.listPrices, {}, config, base.slice(0, -'/v1'.length));
  const delivery = await transport.deliver(request, PREFLIGHT_RETRY_BUDGET_MS);
  if (delivery.kind !== 'answer') return '';
  const exchange = answered(OPERATIONS.listPrices, request, delivery, config);
  const parsed = parseBody(exchange.text, exchange.contentType);
  const { status } = exchange;
  // §2.7's entries, not any JSON array: another endpoint at that path (a legacy one, under a wrong base path) is not.
  if (status < 200 || status > 299 || !(parsed?.kind === 'json' && isPriceList(parsed.value))) return '';
  return (
    `\n  GET ${request.url}, without /v1, answers a price list: the target serves the API without the /v1 ` +
    'that §9 requires (GEN-V1-PREFIX).'
  );
}

/**
 * An answer to a setting's read that says something of the target, not that the setting names nothing: a 3xx (a
 * redirect says where the target answers instead), or a 428 that asks for a conditional request (RFC 6585 §3), which
 * the spec does not describe.
 */
function answeredBesideTheSetting(exchange: Exchange): string | undefined {
  const label = operationLabel(exchange.operation);
  if (exchange.status === 428)
    return (
      `HTTP 428 (Precondition Required): the target wants ${label} sent as a conditional request (If-Match, RFC ` +
      `6585 §3), which the spec does not describe. Body: ${bodyInLine(exchange, EXCERPT_CHARS)}`
    );
  return redirectProblem(exchange, exchange.location, `The target answers ${label} at another path than the spec's.`);
}

/** Reads every resource the settings name, side by side (the transport keeps to the rate cap). */
async function checkResources(transport: Transport, config: PreflightConfig, base: string): Promise<void> {
  const results = await Promise.all(
    resourceReads(config).map(async (read) => {
      const operation = OPERATIONS[read.operation];
      const { params, query, body: json } = read;
      const request = outgoing(operation, { params, query, json }, config, base);
      const { url } = request;
      const sent = `${operation.method} ${url}`;
      const delivery = answeredByGateway(await transport.deliver(request, PREFLIGHT_RETRY_BUDGET_MS));
      if (delivery.kind !== 'answer') {
        const problem = transportProblem(delivery, operationLabel(operation), url, config, true);
        return { targetProblem: `${sent}\n  ${problem}` };
      }
      const exchange = answered(operation, request, delivery, config);
      // What stands in front of the API (a firewall's page, a gateway's page, a sign-in redirect, a proxy's 407) says
      // nothing of the setting, and a server error says first that the target is failing.
      const inFront = answeredInFront(operationLabel(operation), exchange, config.proxy);
      if (inFront !== undefined) return { targetProblem: `${sent}\n  ${inFront}` };
      const beside = answeredBesideTheSetting(exchange);
      if (beside !== undefined) return { targetProblem: `${sent}\n  ${beside}` };
      if (read.expect === 'present' && exchange.status >= 500)
        return { targetProblem: `${sent}\n  ${serverError(read, exchange)}` };
      const problem = resourceProblem(read, exchange, config);
      const other = read.otherValue && { params: read.params, json: read.otherValue.body };
      const otherTaken = problem !== undefined && other && (await carriedOutToo(transport, read, other, config, base));
      if (otherTaken && read.otherValue) return { targetProblem: `${sent}\n  ${read.otherValue.said}` };
      const control = read.control && { params: read.control, query: read.query };
      const anyFound =
        problem !== undefined && control && (await carriedOutToo(transport, read, control, config, base));
      const wrongSetting = anyFound ? undefined : problem;
      // Refused as unauthorised, although the price list took the token: a write, by an account that reads only (as a
      // staging account often is); a read, by a token without the rights or scope for it (OAuth's insufficient_scope).
      const refused = wrongSetting !== undefined && [401, 403].includes(exchange.status);
      const writeRefused = refused && read.body !== undefined;
      const readRefused = refused && read.body === undefined ? { challenge: challengeShown(exchange) } : undefined;
      return { wrongSetting, writeRefused, readRefused };
    }),
  );
  const targetProblem = results.find((r) => r.targetProblem !== undefined)?.targetProblem;
  if (targetProblem !== undefined) throw new PreflightError(redact(`${HEADING}\n  ${targetProblem}`));
  const wrong = results.map((r) => r.wrongSetting).filter((p): p is string => p !== undefined);
  if (wrong.length === 0) return;
  const what = wrong.length === 1 ? 'A setting does not name' : `${wrong.length} settings do not name`;
  const readOnly = results.some((r) => r.writeRefused) ? `\n  ${READ_ONLY_ADVICE}` : '';
  const readsRefused = results.flatMap((r) => (r.readRefused ? [r.readRefused] : []));
  const scope =
    readsRefused.length > 0 ? `\n  ${readRefusedAdvice(readsRefused.find((r) => r.challenge)?.challenge)}` : '';
  const named = wrong.map((p) => `  ${p}`).join('\n');
  throw new PreflightError(redact(`${HEADING} ${what} what the target has:\n${named}${readOnly}${scope}`));
}

/**
 * Whether another request of `read`'s operation is carried out, unanswered counting as not: the made-up resource of
 * `read.control` (found as well, the target finds whatever it is asked for, which the tests fail, OP8-UNKNOWN-PRODUCT,
 * and the setting is not what stops the run), or the write with its other value (ResourceRead.otherValue).
 */
async function carriedOutToo(
  transport: Transport,
  read: ResourceRead,
  options: SendOptions,
  config: PreflightConfig,
  base: string,
): Promise<boolean> {
  const operation = OPERATIONS[read.operation];
  const request = outgoing(operation, options, config, base);
  const delivery = await transport.deliver(request, PREFLIGHT_RETRY_BUDGET_MS);
  if (delivery.kind !== 'answer') return false;
  return outcomeOf(answered(operation, request, delivery, config), config).succeeded;
}

/**
 * After a read of the preflight refused with 401 or 403, although the price list took the token: the token's rights or
 * scope, not the setting, may be why; the challenge (`WWW-Authenticate`) says which when the target sends one.
 */
function readRefusedAdvice(challenge: string | undefined): string {
  const says = challenge ? ` The target says: WWW-Authenticate: ${challenge}.` : '';
  return (
    'A read was refused with HTTP 401 or 403, although the target took RSF_BEARER_TOKEN for the price list: the ' +
    `token may lack the rights or the scope to read it.${says} Use a token that may, or check the setting.`
  );
}

/** After a write of the preflight refused with 401 or 403: the token's account, not the setting, may be why. */
const READ_ONLY_ADVICE =
  'A write was refused with HTTP 401 or 403: the account of RSF_BEARER_TOKEN may not be allowed to write on this ' +
  'target. Use a token whose account may write, or leave RSF_ALLOW_WRITES off.';

/**
 * The preflight. `resourceBase` is where the settings' resources are read: against the embedded reference, its clean
 * profile, whose data every mode and fault shares (a fault must fail its check, not stop the run). `state` is the
 * run's breaker and pace, this process's view of them unless given.
 */
export async function preflight(
  config: PreflightConfig,
  base = apiBase(config),
  resourceBase = base,
  state = runState(),
  onWait: (message: string) => void = () => {},
  /** waitUntilUp has waited already: the target is not waited for again. */
  waited = false,
): Promise<void> {
  const transport = new Transport(transportOptions(config), base, 1, state);
  // The price list first: a wrong URL or a refused token explains every other failure, and the reads of the
  // settings' resources would only repeat it to the target (and a refused token many times over).
  await checkPrices(transport, config, base, onWait, waited);
  await checkResources(transport, config, resourceBase);
  // Under a rate cap, the tests' requests start a window of their own. A failed preflight ends the run: no wait.
  await transport.settle();
  // A burst of reads throttled halves the run's pace: the first tests carry that into the reports.
  for (const slowDown of transport.slowDowns.take()) state.handOverSlowDown(slowDown);
}
