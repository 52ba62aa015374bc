// How an answer is judged, on answers made up in-process (support/judged.ts): pages and caches in front of the API,
// refusals before the data, wrong settings, bodies that are not what they say, and the refusals each check allows.
// No request is sent; what the client does on the wire is in hostile-targets.spec.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Credentials,
  type Exchange,
  blockedInFront,
  exchangeOf,
  integerDigits,
  redirectedAway,
} from '../../src/http/exchange';
import {
  acceptsValidInput,
  documentedErrorShape,
  ignoredAuthRejected,
  errorContentType,
  jsonContentType,
  jsonUtf8,
  negativeDataRejection,
  notRejected,
  rejectionProblem,
  schemaProblem,
  successProblem,
  worksWithoutCredentials,
} from '../../src/checks/checks';
import { CheckFailure } from '../../src/checks/failure';
import {
  neitherSuccessNorRefusal,
  outcomeOf,
  refusedBeforeTheData,
  settingsMayBeToBlame,
} from '../../src/checks/outcome';
import { stockLabelProblem } from '../../src/checks/stock';
import { loadConfig } from '../../src/config/config';
import { NoAnswer } from '../../src/http/no-answer';
import {
  answeredInFront,
  bodyExcerpt,
  cacheNote,
  curlOf,
  cutJsonNote,
  noAnswerMessage,
  notUtf8Note,
  refusedBeforeTheDataMessage,
  throttledMessage,
  webPageNote,
} from '../../src/http/presentation';
import { WRONG_CHANNEL_SETTINGS } from '../../src/model/body-rules';
import { OPERATIONS } from '../../src/model/operations';
import { expect, test } from '../../src/playwright/fixtures';
import { refusedAsWrongSettings } from '../../src/playwright/wrong-settings';
import { CAP, answered, judgement } from './support/judged';
import { USER_AGENT } from '../../src/http/client-headers';
import { recordsOf } from '../../src/evidence/exchange-log';

test.describe.configure({ mode: 'parallel' });

test('a success status with a whole HTML document is a page in front of the API; markup in a string is judged', () => {
  const label = 'operation 5';
  const page = (body: string, status = 200) =>
    answeredInFront(label, answered(OPERATIONS.updateCartItems, status, body), undefined);
  for (const document of [
    '<!DOCTYPE html><html><body>Maintenance</body></html>',
    '\n  <!doctype HTML>\n<title>Sign in</title>',
    '<!-- gateway --><html lang="es"><body>Iniciar sesión</body></html>',
    '<html>',
  ])
    expect(page(document), document).toMatch(/^operation 5 answered HTTP 200 with a web page/);
  expect(page('<!DOCTYPE html><html></html>', 204)).toMatch(/answered HTTP 204 with a web page/);
  // The API's own answers: a plain string (with markup in it, even), JSON, an error status (judged, or a firewall's).
  for (const body of ['Items added to the cart', '<b>Items</b> added', '"<html>"', '{"html":"<html>"}', '<htmlx>'])
    expect(page(body), body).toBeUndefined();
  expect(page('<!DOCTYPE html><html></html>', 500)).toBeUndefined();
});

test('a whole web page where §7.1 shows a plain string is no plain string; markup in a message is', async () => {
  const check = documentedErrorShape('OP2-MISSING-DATA-PLAIN-STRING');
  const judge = async (body: string, contentType = 'text/plain') => {
    const outcome = await judgement(check, answered(OPERATIONS.createShippingAddress, 400, body, 'valid', contentType));
    return outcome instanceof CheckFailure ? outcome.data.title : outcome;
  };
  const nginx = '<html>\r\n<head><title>400 Bad Request</title></head>\r\n<body><center>nginx</center></body></html>';
  expect(await judge(nginx, 'text/html')).toBe('A web page where the API answers a plain string');
  expect(await judge('<!DOCTYPE html><html><body>placeId is mandatory</body></html>', 'text/html')).toBe(
    'A web page where the API answers a plain string',
  );
  expect(await judge('placeId is mandatory')).toBeUndefined();
  expect(await judge('<b>placeId</b> is mandatory')).toBeUndefined();
  expect(await judge('"placeId is mandatory"', 'application/json')).toBeUndefined();
});

test('throttled to the end: a 429 is a rate limit; a 503 with Retry-After may be an overload or a maintenance', () => {
  const throttled = (status: number) => {
    const response = { status, headers: { 'retry-after': '5' }, body: Buffer.alloc(0), sizeBytes: 0, truncated: false };
    const delivery = { kind: 'throttled' as const, response: { ...response, durationMs: 1 }, attempts: [] };
    return throttledMessage('operation 1', { ...delivery, gaveUp: 'retries' });
  };
  expect(throttled(429)).toContain("A rate limit is the target's choice (§8)");
  // RFC 9110 §15.6.4: a gateway's page "under scheduled maintenance" is no rate limit a lower pace would meet.
  expect(throttled(503)).toContain('A rate limit, an overload or a maintenance window (HTTP 503)');
  expect(throttled(503)).toContain('run the suite when it is over');
});

test('an error status with a whole web page: its failure notes that a server in front may have put it there', () => {
  const nginx = '<html>\r\n<head><title>400 Bad Request</title></head>\r\n<body><center>nginx</center></body></html>';
  const note = (status: number, body: string) => webPageNote(answered(OPERATIONS.updateClient, status, body));
  expect(note(400, nginx)).toBe(
    'the answer is a web page (HTTP 400), where the API answers JSON or plain strings: a web server or proxy in ' +
      "front of the API may put its own page in place of the API's error body (nginx's proxy_intercept_errors, IIS's " +
      "custom errors), or the framework's default error handler may answer before the API's code runs (Express's, " +
      "Spring's Whitelabel page). Send the request to the API itself, and see where its errors are handled.",
  );
  // The API's own answers: a plain string, JSON, a success (a page with a success status is not judged at all).
  for (const [status, body] of [
    [400, 'Bad request'],
    [400, '{"status":"error","message":"bad"}'],
    [200, nginx],
  ] as const)
    expect(note(status, body), `${status} ${body}`).toBeUndefined();
});

test("an answer a cache gave: its failure notes that it may be another request's, and which headers say so", () => {
  const order = '{"branch":"1","albNumber":"123456"}';
  const note = (headers: Record<string, string>) =>
    cacheNote(answered(OPERATIONS.getOrder, 200, order, 'none', 'application/json', headers));
  expect(note({ age: '12', 'cf-cache-status': 'HIT', 'x-cache': 'MISS' })).toBe(
    'the answer came from a cache in front of the API (age: 12; cf-cache-status: HIT), not from the API for this ' +
      'request: a cache that keys its answers by URL alone gives one caller what another was answered, and a read ' +
      'what was true before a write. Key the cache by the Authorization header, or have the API mark such answers ' +
      "'Cache-Control: private' or 'no-store'; send the request to the API itself to see its own answer.",
  );
  // RFC 9211's Cache-Status, CloudFront's X-Cache, nginx's convention; and Age alone (RFC 9111 §5.1).
  expect(note({ 'cache-status': 'ExampleCache; hit; ttl=30' })).toContain('(cache-status: ExampleCache; hit; ttl=30)');
  expect(note({ 'x-cache': 'Hit from cloudfront' })).toContain('(x-cache: Hit from cloudfront)');
  expect(note({ 'x-cache-status': 'HIT' })).toContain('(x-cache-status: HIT)');
  expect(note({ age: '0' })).toContain('(age: 0)');
  // Marked no-store by the API, and kept all the same: the cache's own rule is to mend (indep117, a CDN's edge TTL).
  const overridden = note({ age: '50', 'cf-cache-status': 'HIT', 'cache-control': 'no-store' });
  expect(overridden).toContain('(age: 50; cf-cache-status: HIT; cache-control: no-store)');
  expect(overridden).toContain("a rule of the cache's overrides the origin's Cache-Control");
  expect(overridden).not.toContain("have the API mark such answers 'Cache-Control: private'");
  // The API's own answer, passed through a cache that did not keep it.
  const passedThrough: Record<string, string>[] = [
    {},
    { 'x-cache': 'MISS' },
    { 'cf-cache-status': 'DYNAMIC' },
    { 'cache-status': 'c; fwd=uri-miss' },
  ];
  for (const headers of passedThrough) expect(note(headers), JSON.stringify(headers)).toBeUndefined();
});

test('a refusal before the data: with the valid token, in no documented shape, where the spec shows the errors', () => {
  const forbidden = '{"message":"Forbidden"}';
  const before = (name: keyof typeof OPERATIONS, status: number, body: string, credentials: Credentials = 'valid') =>
    refusedBeforeTheData(answered(OPERATIONS[name], status, body, credentials));
  // A read whose errors §7.1 documents (operation 7: a plain string), a write: a firewall's or the rights' refusal.
  expect(before('quoteShipping', 403, forbidden)).toBe(true);
  expect(before('updateCategory', 401, forbidden)).toBe(true);
  // The API's own refusals: in a documented shape, of a read whose errors are not shown (§7.4), or without the token.
  expect(before('quoteShipping', 403, '"the shipping could not be calculated"')).toBe(false);
  expect(before('getPaymentVoucher', 403, forbidden)).toBe(false);
  expect(before('quoteShipping', 403, forbidden, 'none')).toBe(false);
  expect(before('quoteShipping', 401, forbidden)).toBe(false);
  // A write with a body, refused before it; a deletion (no body, errors not shown, §7.4) refused as the API's own.
  expect(before('updateCategory', 403, forbidden)).toBe(true);
  expect(before('deleteProduct', 403, '{"error":"not one of this account\'s products"}')).toBe(false);
  expect(before('deleteProduct', 401, forbidden)).toBe(true);
  // An operation that takes no credentials (§5.3): its errors documented (operation 6), or not shown (15, §7.4).
  expect(before('createPaymentPreference', 403, forbidden, 'none')).toBe(true);
  expect(before('createPaymentPreference', 403, '{"error_message":"not created"}', 'none')).toBe(false);
  expect(before('sendChannelMessage', 403, forbidden, 'none')).toBe(false);
  const message = refusedBeforeTheDataMessage(
    'operation 6',
    answered(OPERATIONS.createPaymentPreference, 403, forbidden, 'none'),
  );
  expect(message).toContain(
    "to an operation that takes no credentials (§5.3): a refusal before the data, by a firewall's rule (against " +
      "quotes or markup in the request, say), not the API's of the data. Not judged: let the suite's requests through",
  );
  // A token without the scope of an operation: OAuth says which, in its challenge (RFC 6750 §3.1).
  const challenge = 'Bearer error="insufficient_scope", scope="postsale:write"';
  const scoped = { ...answered(OPERATIONS.createPostSale, 401, '{"error":"insufficient_scope"}'), challenge };
  expect(refusedBeforeTheData(scoped)).toBe(true);
  expect(refusedBeforeTheDataMessage('operation 13', scoped)).toContain(`It says: WWW-Authenticate: ${challenge}.`);
});

test('a refusal is put down to the settings only when the Bearer token and a made-up token get the same', async () => {
  const answer = (status: number, body: string) => answered(OPERATIONS.sendChannelMessage, status, body, 'none');
  const config = loadConfig();
  const refusal = answer(403, '{"success":"error"}');
  const suspect = (judged: Exchange, withBearer: Exchange, wrong: Exchange) =>
    refusedAsWrongSettings(
      judged,
      {
        wrong: {
          ...WRONG_CHANNEL_SETTINGS,
          settings: ['channelToken'],
          variants: WRONG_CHANNEL_SETTINGS.variants.slice(0, 1),
        },
        sendWrong: async () => wrong,
        sendWithBearer: async () => withBearer,
      },
      config,
    );
  expect(await suspect(refusal, refusal, refusal)).toMatch(
    /^operation 15 .* RSF_CHANNEL_TOKEN \(secret\) may be wrong/,
  );
  // Judged as before: another refusal of the made-up token (the message, not the token, was refused), a refusal the
  // Bearer token lifts (a target that demands it, OP15-NO-AUTH-HEADER), a server's error, a success.
  expect(await suspect(refusal, refusal, answer(403, '{"success":"error","msg":"bad token"}'))).toBeUndefined();
  expect(await suspect(refusal, answer(200, '{"success":"ok"}'), refusal)).toBeUndefined();
  // RFC 9457 problem details: the trace id, and the path with the channel token each request sent, change every time.
  const problem = (token: string, trace: string): Exchange => {
    const path = `/v1/postventa/7001/messageChannel/${token}/u-42`;
    const body = { title: 'Channel access denied', status: 403, instance: path, traceId: `00-${trace}-01` };
    const x = answer(403, JSON.stringify(body));
    return { ...x, request: { ...x.request, url: `http://127.0.0.1${path}` } };
  };
  const [configured, madeUp] = ['chn-configured-1', 'made-up-channel-token-99'];
  expect(
    await suspect(
      problem(configured, '4bf92f3577b34da6a3ce929d0e0e4736'),
      problem(configured, '0af7651916cd43dd8448eb211c80319c'),
      problem(madeUp, 'b7ad6b7169203331b7ad6b7169203331'),
    ),
  ).toMatch(/RSF_CHANNEL_TOKEN \(secret\) may be wrong/);
  const failing = answer(500, 'oops');
  expect(await suspect(failing, failing, failing)).toBeUndefined();
  // A route that does not take the spec's method (RFC 9110 §15.5.6): no value of a setting changes that.
  const notAllowed = { ...answer(405, '<html><body>Method Not Allowed</body></html>'), contentType: 'text/html' };
  expect(await suspect(notAllowed, notAllowed, notAllowed)).toBeUndefined();
  const ok = answer(200, '{"success":"ok"}');
  expect(await suspect(ok, ok, ok)).toBeUndefined();
});

test('a refusal alike a made-up user, where a made-up token gets another: the settings are suspect', async () => {
  // A target that tells a wrong user from a wrong token (indep82): a wrong RSF_CHANNEL_USER_ID is refused as the
  // made-up user is, and the made-up token otherwise. Before, only the made-up token was sent: FAIL, for a setting.
  const answer = (body: string) => answered(OPERATIONS.sendChannelMessage, 403, body, 'none');
  const [wrongUser, wrongToken, other] = [
    answer('{"error":"user is not a member of this channel"}'),
    answer('{"error":"invalid channel token"}'),
    answer('{"error":"channel is closed"}'),
  ];
  const config = loadConfig();
  const sent: string[] = [];
  const suspect = (judged: Exchange) =>
    refusedAsWrongSettings(
      judged,
      {
        wrong: WRONG_CHANNEL_SETTINGS,
        sendWrong: async ({ what }) => {
          sent.push(what);
          return what === 'a made-up user' ? wrongUser : wrongToken;
        },
        sendWithBearer: async () => judged,
      },
      config,
    );
  expect(await suspect(wrongUser)).toMatch(/as it refuses a made-up user, .*RSF_CHANNEL_USER_ID=\S+ may be wrong/);
  expect(sent).toEqual(['a made-up channel token', 'a made-up user']);
  // Refused unlike either made-up setting: the target's own refusal, judged.
  expect(await suspect(other)).toBeUndefined();
});

test('an exchange larger than the cap reads as "response larger than N bytes"', () => {
  const response = {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from('{"a":"'),
    sizeBytes: CAP + 1,
    truncated: true,
    durationMs: 1,
  };
  const request = { method: 'GET', url: 'http://127.0.0.1/v1/item/1', headers: {} };
  const exchange = exchangeOf(OPERATIONS.getProduct, 'valid', request, response, [], CAP);
  expect(exchange.body).toEqual({
    kind: 'text',
    value: expect.stringContaining(`response larger than ${CAP} bytes`),
  });
  expect(bodyExcerpt(exchange)).toBe(`{"a":"… (more than ${CAP} bytes; read no further)`);
  // Neither a success nor a rejection: a check that wants either fails on the size, and says so.
  const config = loadConfig();
  expect(successProblem(exchange, config)?.message).toContain(`response larger than ${CAP} bytes`);
  expect(rejectionProblem(exchange, config)?.message).toContain(`a response larger than ${CAP} bytes`);
});

test('a body labelled JSON that does not parse says why, in JSON.parse\'s words, not only "a text body"', () => {
  const body = '{"\u0000title":"Cordless drill"}'; // a raw control character in a string: not JSON (RFC 8259 §7)
  const exchange = answered(OPERATIONS.getProduct, 200, body);
  expect(schemaProblem(exchange, ['product.response'])?.message).toMatch(
    /received: a body that is not valid JSON \(Bad control character in string literal.*\), read as text/,
  );
  // So does a success that is not one, rather than only "(root) must be object".
  expect(successProblem(exchange, loadConfig())?.message).toMatch(
    /received: HTTP 200, but the body is not valid JSON \(Bad control .*\): read as text, it does not match product/,
  );
  const text = answered(OPERATIONS.getProduct, 200, 'not found', 'valid', 'text/plain');
  expect(schemaProblem(text, ['product.response'])?.message).toContain('received: a text body with schema errors');
});

test('a valid update answered 200 without its message: neither a success nor a refusal, both shown', async () => {
  const exchange = answered(OPERATIONS.updateClient, 200, '{"status":"ok","updatedAt":"2026-11-28T02:14:58Z"}');
  const check = acceptsValidInput('OP1-SUCCESS-SHAPE', { reason: '§4.1', errorShape: 'OP1-ERROR-SHAPE' });
  const thrown = await judgement(check, exchange);
  // Not "does not match the error schema" alone, as if the target had meant a refusal.
  expect(thrown).toBeInstanceOf(CheckFailure);
  const { title, detail, schemaErrors } = (thrown as CheckFailure).data;
  expect(title).toBe('Neither a success nor a documented refusal');
  expect(detail).toContain('received: HTTP 200, but the body does not match client.response');
  expect(schemaErrors).toEqual([
    expect.stringMatching(/^as a success: .*required property 'message'/),
    expect.stringMatching(/^as a refusal: .*required property 'message'/),
  ]);
});

test('no error body documented: a 2xx JSON object for a text success fails; other 2xx refusals do not', async () => {
  const refusal = { reason: '§4.5: the product does not exist or could not be updated' };
  const cart = acceptsValidInput('OP5-SUCCESS-SHAPE', refusal);
  // Operation 5's success is a plain string: {added: 2} to two items is a success off its shape.
  expect(await judgement(cart, answered(OPERATIONS.updateCartItems, 200, '{"added":2}'))).toBeInstanceOf(CheckFailure);
  // A refusal it recognises, by its marker, stays allowed.
  expect(await judgement(cart, answered(OPERATIONS.updateCartItems, 200, '{"error":"no stock"}'))).toEqual({
    notApplicable: expect.stringContaining('refused for a reason the spec allows'),
    allowedRefusal: true,
  });
  // A request that may be refused in a shape the suite cannot read (an item of a product the target may not have,
  // indep101's {"fault": …}): allowed; where the request is one no listed reason reaches, a success off its shape.
  const own = '{"fault":"el producto no existe","added":0}';
  for (const [refusedInAnyShape, judged] of [
    [true, { notApplicable: expect.stringContaining('refused for a reason the spec allows'), allowedRefusal: true }],
    [false, expect.any(CheckFailure)],
  ] as const) {
    const check = acceptsValidInput('OP5-SUCCESS-SHAPE', { ...refusal, refusedInAnyShape: () => refusedInAnyShape });
    expect(await judgement(check, answered(OPERATIONS.updateCartItems, 200, own)), String(refusedInAnyShape)).toEqual(
      judged,
    );
  }
  // Where the success is JSON, a 2xx of another shape may be a refusal in words the suite does not know: allowed,
  // and, of a made-up id (expected), not shown among the valid inputs refused.
  const channel = acceptsValidInput('OP14-SUCCESS-SHAPE', {
    reason: 'the id may name nothing on the target',
    expected: () => true,
  });
  for (const body of ['[]', 'null', '"canal não encontrado"'])
    expect(await judgement(channel, answered(OPERATIONS.getMessageChannel, 200, body)), body).toEqual({
      notApplicable: expect.stringContaining('refused for a reason the spec allows'),
    });
});

test('a 2xx labelled JSON that does not parse is a success gone wrong, never a refusal the spec allows', async () => {
  const quote = acceptsValidInput('OP7-SUCCESS-SHAPE', { reason: '§4.7', errorShape: 'OP7-ERROR-SHAPE' });
  const judge = (body: string, contentType: string) =>
    judgement(quote, answered(OPERATIONS.quoteShipping, 200, body, 'valid', contentType));
  // An echoed quote left unescaped: under application/json, the documented plain string would be a JSON string.
  expect(await judge('{"codigoPostal":"3º "B"","costo":10}', 'application/json')).toBeInstanceOf(CheckFailure);
  expect(await judge('{"codigoPostal":"2000","costo":10}', 'application/json')).toBeUndefined();
  // The plain string of §4.7's refusal, as text or as a JSON string: allowed.
  for (const [body, type] of [
    ['Dirección inválida', 'text/plain'],
    ['"Dirección inválida"', 'application/json'],
  ])
    expect(await judge(body as string, type as string), body).toEqual({
      notApplicable: expect.stringContaining('refused for a reason the spec allows'),
      allowedRefusal: true,
    });
});

test('credentials refused with a 5xx fail, unless in the JSON error object the spec documents for them', async () => {
  // A handler that cannot split `Bearer` with nothing after it: the server failing, not a "not authenticated" error.
  const crash = 'Internal Server Error: ValueError: not enough values to unpack';
  const postSale = ignoredAuthRejected('OP13-AUTH-REQUIRED');
  const thrown = await judgement(
    postSale,
    answered(OPERATIONS.createPostSale, 500, crash, 'empty-bearer', 'text/plain'),
  );
  expect(thrown).toBeInstanceOf(CheckFailure);
  expect((thrown as CheckFailure).data.title).toBe('Credentials refused with a server error');
  // Operation 9's documented error is a plain string (§7.1), as a crash's text is: a 500 with one still fails.
  const prices = ignoredAuthRejected('OP9-AUTH-REQUIRED', { errorShape: 'OP9-AUTH-ERROR-BODY' });
  const traceback = answered(
    OPERATIONS.listPrices,
    500,
    '"Traceback (most recent call last): KeyError"',
    'empty-bearer',
  );
  expect(await judgement(prices, traceback)).toBeInstanceOf(CheckFailure);
  // Operation 3's is a JSON object (§7.1), its status not shown (§7.3): a 500 carrying it is that error, and only
  // HTTP-AUTH-401 (SHOULD) says so.
  const address = ignoredAuthRejected('OP3-AUTH-REQUIRED', { errorShape: 'OP3-AUTH-ERROR-BODY' });
  const refusal = '{"success":"error","msg":"not authenticated"}';
  expect(await judgement(address, answered(OPERATIONS.updateShippingAddress, 500, refusal, 'empty-bearer'))).toBe(
    undefined,
  );
});

test('valid input refused for its size (413, 414, 431) is a limit §8 leaves open: not failed', async () => {
  const page = (status: number) => `<html><head><title>${status}</title></head><body>nginx</body></html>`;
  const withRefusal = acceptsValidInput('OP1-SUCCESS-SHAPE', { reason: '§4.1', errorShape: 'OP1-ERROR-SHAPE' });
  const without = acceptsValidInput('OP6-SUCCESS-SHAPE');
  for (const status of [413, 414, 431]) {
    for (const check of [withRefusal, without]) {
      const exchange = answered(OPERATIONS.updateClient, status, page(status), 'valid', 'text/html');
      expect(await judgement(check, exchange), `HTTP ${status}`).toEqual({
        notApplicable: `refused for its size (HTTP ${status}), a limit §8 leaves open: no success to judge`,
      });
    }
  }
  // Any other refusal in no documented shape is judged, as before.
  const badRequest = answered(OPERATIONS.updateClient, 400, page(400), 'valid', 'text/html');
  expect(await judgement(withRefusal, badRequest)).toBeInstanceOf(CheckFailure);
});

test('utility 100 answered with a malformed success is not failed as refused: one fault, judged once', async () => {
  const check = notRejected('OP4-UTILITY-MAX', 'OP4-ERROR-SHAPE');
  const judge = async (status: number, body: string) => {
    const outcome = await judgement(check, answered(OPERATIONS.updateCategory, status, body));
    return outcome instanceof CheckFailure ? outcome.data.title : outcome;
  };
  // success "ok" where §4.4 shows true: OP4-SUCCESS-SHAPE's fault; not a refusal of utility 100.
  expect(await judge(200, '{"success":"ok","msg":"Category updated"}')).toEqual({
    notApplicable: expect.stringContaining('neither a documented success nor a refusal'),
  });
  expect(await judge(200, '{"success":true,"msg":"Category updated"}')).toBeUndefined();
  const refused = 'The operation did not succeed';
  expect(await judge(200, '{"success":false,"msg":"utility out of range"}')).toBe(refused);
  expect(await judge(200, '{"error_message":"utility out of range"}')).toBe(refused);
  expect(await judge(422, '{"success":"ok","msg":"Category updated"}')).toBe(refused);
  expect(await judge(200, '"invalid utility"')).toBe(refused);
});

test('product detail served anonymously with a field missing is no refusal of the caller: judged once', async () => {
  const cases = JSON.parse(readFileSync(join(__dirname, 'schema-cases/product.response.json'), 'utf8'));
  const product = (cases[0].tests as { data: Record<string, unknown> }[])[0]?.data ?? {};
  const check = worksWithoutCredentials('OP8-TOKEN-OPTIONAL');
  const withToken = answered(OPERATIONS.getProduct, 200, JSON.stringify(product));
  const judge = async (status: number, body: string) => {
    const anonymous = answered(OPERATIONS.getProduct, status, body, 'none');
    try {
      return await check.assertions[0]?.judge(anonymous, { config: loadConfig(), resend: async () => withToken });
    } catch (e) {
      return e instanceof CheckFailure ? e.data.title : e;
    }
  };
  const { amountInCart: _, ...withoutCart } = product;
  // Served without amountInCart: OP8-SUCCESS-SHAPE's fault, not a refusal of the anonymous caller.
  expect(await judge(200, JSON.stringify(withoutCart))).toEqual({
    notApplicable: expect.stringContaining('neither a documented success nor a refusal'),
  });
  expect(await judge(200, JSON.stringify(product))).toBeUndefined();
  const refused = 'Credentials required where the spec takes none';
  expect(await judge(401, '"Unauthorized"')).toBe(refused);
  expect(await judge(200, '"Debe iniciar sesión"'), "refused in §4.8's plain string, HTTP 200").toBe(refused);
  expect(await judge(200, '{"error_message":"login required"}')).toBe(refused);
  // The failure shows the settings sound (the same request with the token succeeded): no hint names them (indep95).
  const anonymous = answered(OPERATIONS.getProduct, 401, '"Unauthorized"', 'none');
  const failure = await Promise.resolve()
    .then(() => check.assertions[0]?.judge(anonymous, { config: loadConfig(), resend: async () => withToken }))
    .catch((e: unknown) => e);
  expect(failure instanceof CheckFailure && failure.data.settingsCleared).toBe(true);
});

test('a failure judged on a body that is not UTF-8 notes that its bytes were read as U+FFFD, and where', () => {
  const detail = (body: Buffer, contentType: string) =>
    notUtf8Note(answered(OPERATIONS.getProduct, 200, body, 'valid', contentType));
  // ISO-8859-1 under a UTF-8 label: "100 unidades o más" reads "100 unidades o m�s", which fails the stock label.
  const latin1 = Buffer.from('{"availableStockLabel":"100 unidades o más"}', 'latin1');
  expect(detail(latin1, 'application/json;charset=UTF-8')).toMatch(
    /^the body is not UTF-8 \(labelled charset=UTF-8\), .* read as U\+FFFD .* GEN-JSON-UTF8 judges the encoding\.$/,
  );
  expect(detail(latin1, 'application/json')).toMatch(/^the body is not UTF-8, which RFC 8259/);
  expect(detail(Buffer.from('{"availableStockLabel":"100 unidades o más"}'), 'application/json')).toBeUndefined();
});

test('an operation no longer sent says it was not sent, not that it got no answer', () => {
  const label = 'operation 1 (PATCH /v1/client, §4.1)';
  const why = 'not sent, because its last 2 requests got no usable answer (the last: HTTP 502)';
  // Before: "… got no answer: not sent, because …", which indep96 read as a contradiction.
  expect(noAnswerMessage(label, new NoAnswer('operation-stopped', why, 0), 10_000)).toBe(`${label} was ${why}`);
  expect(noAnswerMessage(label, new NoAnswer('timeout', 'no complete answer within 10000 ms', 10_000), 10_000)).toBe(
    `${label} got no answer: no complete answer within 10000 ms (RSF_REQUEST_TIMEOUT_MS=10000)`,
  );
});

test('a failure judged on a body cut mid-JSON where its framing ended notes a length counted in characters', () => {
  // A hand-written HTTP layer's Content-Length of the text's characters: "3º B" is 5 bytes in UTF-8, 4 characters.
  const note = (body: string) =>
    cutJsonNote(answered(OPERATIONS.quoteShipping, 200, body, 'valid', 'application/json'));
  const cut = note('{"direccion":"Av. Siempre Viva 742, 3º');
  expect(cut).toMatch(/^the body ends in the middle of a JSON value, .*; it holds text beyond ASCII, 1 byte more /);
  expect(cut).toContain("than its characters: a server that counts a body's length in characters, not in bytes");
  expect(note('{"cost":1')).toMatch(/ said it ends: a server that counts/);
  expect(note('[{"id":1}')).toBeDefined();
  expect(note('{"cost":1}'), 'whole').toBeUndefined();
  expect(note('{"cost":1}x'), 'more after it, not less').toBeUndefined();
  expect(note('{"cost":x}'), 'broken inside').toBeUndefined();
  expect(note('Internal error'), 'no JSON at all').toBeUndefined();
});

test('JSON in ISO-8859-1 is flagged, bytes escaped; UTF-8 passes; ASCII is no sample, but under UTF-16', async () => {
  const quoted = (body: string | Buffer, contentType?: string) =>
    judgement(jsonUtf8(), answered(OPERATIONS.quoteShipping, 200, body, 'valid', contentType));
  const text = '{"codigoPostal":"Ñandú","costo":10}';
  const thrown = await quoted(Buffer.from(text, 'latin1'), 'application/json; charset=iso-8859-1');
  expect(thrown).toBeInstanceOf(CheckFailure);
  const { title, detail } = (thrown as CheckFailure).data;
  expect(title).toBe('A JSON body that is not UTF-8');
  expect(detail).toContain(
    'received: bytes that are not UTF-8, labelled charset=iso-8859-1: {"codigoPostal":"\\xd1and\\xfa"',
  );
  expect(await quoted(text)).toBeUndefined();
  expect(await quoted('{"codigoPostal":"2000","costo":10}')).toEqual({
    notApplicable: 'the body is ASCII: every encoding reads it alike',
  });
  // PHP's json_encode escapes every character beyond ASCII by default: the reason says so (indep94).
  expect(await quoted('{"codigoPostal":"\\u00d1and\\u00fa","costo":10}')).toEqual({
    notApplicable: 'the body is ASCII, its characters beyond ASCII escaped as \\uXXXX: every encoding reads it alike',
  });
  expect(await quoted('{"codigoPostal":"tab\\u0009","costo":10}')).toEqual({
    notApplicable: 'the body is ASCII: every encoding reads it alike',
  });
  // But not UTF-16 or UTF-32, whose label makes two or four bytes of one character: ASCII under it is garbled.
  const wide = await quoted('{"codigoPostal":"2000","costo":10}', 'application/json; charset=utf-16');
  expect(wide).toBeInstanceOf(CheckFailure);
  expect((wide as CheckFailure).data.title).toBe('A UTF-8 JSON body labelled with another charset');
  // Valid input of any script is where a target echoes such bytes: its check asserts UTF-8 too.
  expect(acceptsValidInput('OP7-SUCCESS-SHAPE').assertions.map((a) => a.id)).toEqual([
    'OP7-SUCCESS-SHAPE',
    'GEN-JSON-UTF8',
  ]);
});

test('UTF-8 under any of its names and any legal spelling of its parameter passes; another charset warns', async () => {
  const quoted = (contentType: string) =>
    judgement(
      jsonUtf8(),
      answered(OPERATIONS.quoteShipping, 200, '{"codigoPostal":"Ñandú","costo":10}', 'valid', contentType),
    );
  // RFC 9110 §5.6.6: a quoted string, its quoted pairs, any case of the name; csUTF8 is IANA's alias of UTF-8.
  for (const type of [
    'application/json;charset="utf\\-8"',
    'Application/JSON; profile="x;charset=latin1"; Charset=UTF-8',
    'application/json; charset=csUTF8',
    'application/json; charset=unicode-1-1-utf-8',
    'application/json; charset=',
  ])
    expect(await quoted(type), type).toBeUndefined();
  const other = await quoted('application/json; charset="ISO-8859-1"');
  expect((other as CheckFailure).data.detail).toContain('charset=ISO-8859-1, over UTF-8 bytes');
});

test('no stock reads as the no-stock label, as "0 units", or at a limit of 0 as "0 units or more"', () => {
  const config = loadConfig();
  const label = (availableStockLabel: string, availableStock: number, stockDisplayLimit: number) =>
    stockLabelProblem({ availableStockLabel, availableStock, stockDisplayLimit }, config);
  expect(label('no stock', 0, 20)).toBeUndefined();
  expect(label('0 units', 0, 20)).toBeUndefined();
  expect(label('0 units or more', 0, 0)).toBeUndefined();
  expect(label('0 units or more', 0, 20)).toContain('no stock must read as');
  expect(label('5 units', 0, 20)).toContain('no stock must read as');
});

test('a 2xx of another shape than success or refusal was taken: no setting is suspected of it', () => {
  const taken = (status: number, body: string) =>
    neitherSuccessNorRefusal(answered(OPERATIONS.getProduct, status, body), loadConfig());
  // A product without its sku (§2.6): the target's fault, whatever RSF_PRODUCT_ID names.
  expect(taken(200, '{"id":"1001","title":"Drill"}')).toBe(true);
  // Refusals, in a 404 or in a 200: the product id may name nothing on the target.
  expect(taken(404, '{"error_message":"not found"}')).toBe(false);
  expect(taken(200, '{"error_message":"not found"}')).toBe(false);
  expect(taken(200, '"Product not found"')).toBe(false);
  // §7.1's {success, msg} is operation 2's success shape too: "ok" with a malformed addressId is a success gone
  // wrong, taken; "error" is a refusal, in which the settings may be to blame.
  const created = (body: string) =>
    neitherSuccessNorRefusal(answered(OPERATIONS.createShippingAddress, 201, body), loadConfig());
  expect(created('{"success":"ok","msg":"Address created","addressId":"712"}')).toBe(true);
  expect(created('{"success":"error","msg":"placeId is mandatory"}')).toBe(false);
  // §7.1's other success value, true, where §4.3 shows "ok": a success gone wrong too, not a refusal (indep97).
  const updatedAddress = (body: string) =>
    neitherSuccessNorRefusal(answered(OPERATIONS.updateShippingAddress, 200, body), loadConfig());
  expect(updatedAddress('{"success":true,"msg":"Address updated"}')).toBe(true);
  expect(updatedAddress('{"success":false,"msg":"idDirCli not found"}')).toBe(false);
  // And §4.1's {status, message}: a status that says success, with a message that is no string.
  const updated = (body: string) =>
    neitherSuccessNorRefusal(answered(OPERATIONS.updateClient, 200, body), loadConfig());
  expect(updated('{"status":"OK","message":7}')).toBe(true);
  expect(updated('{"status":"ERROR","message":"fiscalNumber is invalid"}')).toBe(false);
});

test('the settings are suspects of a refusal, not of an answer the target took or sent elsewhere', () => {
  const suspects = (status: number, body: string) =>
    settingsMayBeToBlame(answered(OPERATIONS.createPostSale, status, body), loadConfig());
  expect(suspects(404, '"Not found"'), 'refused: RSF_POSTSALE_BODY may name nothing').toBe(true);
  expect(suspects(200, '{"error_message":"no such order"}')).toBe(true);
  // A trailing slash added (308 to /v1/postventa/): the target's routing, whatever the body sent.
  expect(suspects(308, '')).toBe(false);
  expect(suspects(301, '<a href="/v1/postventa/">Moved</a>')).toBe(false);
  // A 2xx labelled JSON that does not parse, a raw line feed in a string (indep101): the encoder's, not a plain
  // string refusal of §7.1 (§4.8's failure), which so labelled would be a JSON string.
  const product = (status: number, body: string) =>
    settingsMayBeToBlame(answered(OPERATIONS.getProduct, status, body), loadConfig());
  expect(product(200, '{"title":"Taladro\n18 V"}')).toBe(false);
  expect(product(500, 'Internal Server Error'), 'the documented failure: the product id may name nothing').toBe(true);
});

test('an error member the request sent, echoed back in a success, is no error marker; an own one is', () => {
  const postSale = (sent: object, answer: object) => {
    const exchange = answered(OPERATIONS.createPostSale, 200, JSON.stringify(answer));
    const withBody = { ...exchange, request: { ...exchange.request, body: JSON.stringify(sent) } };
    return outcomeOf(withBody, loadConfig()).succeeded;
  };
  // A post-sale form with a field named error (the defect, in the customer's words), echoed (§4.13).
  const form = { orderId: 1, error: 'llegó otro modelo' };
  expect(postSale(form, { id: 7, ...form })).toBe(true);
  expect(postSale(form, { id: 7, error: 'order 1 not found' })).toBe(false);
  expect(postSale({ orderId: 1 }, { error: 'order 1 not found' })).toBe(false);
});

test('a body that starts with a byte order mark is read as fetch() and browsers read it: without the mark', () => {
  const withBom = (body: string) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]);
  const prices = answered(OPERATIONS.listPrices, 200, withBom('[]'));
  expect(prices.body).toEqual({ kind: 'json', value: [] });
  expect(bodyExcerpt(prices), 'the excerpt shows the bytes sent').toBe('\\u{feff}[]');
  const text = answered(OPERATIONS.updateCartItems, 200, withBom('ok'), 'valid', 'text/plain');
  expect(text.body).toEqual({ kind: 'text', value: 'ok' });
});

test('a JSON-based media type is JSON, but a success labelled as problem details (RFC 9457) is not one', async () => {
  const voucher = { branch: '0002', order: '540017', total: 1815.61 };
  const labelled = (type: string, status = 200, body: object = voucher) =>
    answered(OPERATIONS.getPaymentVoucher, status, JSON.stringify(body), 'valid', type);
  const success = jsonContentType();
  for (const type of ['application/json', 'application/json; charset=utf-8', 'application/vnd.api+json'])
    expect(await judgement(success, labelled(type)), type).toBeUndefined();
  const thrown = await judgement(success, labelled('application/problem+json'));
  expect(thrown).toBeInstanceOf(CheckFailure);
  expect((thrown as CheckFailure).data.title).toBe('A success labelled as problem details');
  // An error so labelled is problem details indeed: JSON, and no failure of GEN-ERROR-CONTENT-TYPE.
  const problem = { type: 'about:blank', title: 'Not Found', status: 404, detail: 'no voucher 0002-540017' };
  expect(await judgement(errorContentType(), labelled('application/problem+json', 404, problem))).toBeUndefined();
});

test('a 403 page is a firewall; JSON labelled text/html, or a redirect to this machine by another name, is not', () => {
  const refused = (body: string, type: string) => answered(OPERATIONS.updateCategory, 403, body, 'valid', type);
  expect(blockedInFront(refused('<html><body>Request blocked</body></html>', 'text/html'))).toBe(true);
  expect(blockedInFront(refused('', 'text/html'))).toBe(true);
  // The API's documented refusal behind a wrong label: judged, and GEN-ERROR-CONTENT-TYPE fails the label.
  expect(blockedInFront(refused('{"success":false,"msg":"category 99957 does not exist"}', 'text/html'))).toBe(false);
  const redirect = (from: string, location: string): boolean => {
    const x = answered(OPERATIONS.createShippingAddress, 307, '', 'valid', 'text/plain', { location });
    return redirectedAway({ ...x, request: { ...x.request, url: from }, location });
  };
  const api = 'http://127.0.0.1:4970/v1/miCuenta/shippingAddress';
  // An app that builds its URLs from a configured name (localhost) redirects within the target: judged.
  expect(redirect(api, 'http://localhost:4970/v1/miCuenta/shippingAddress/')).toBe(false);
  expect(redirect(api, '/v1/miCuenta/shippingAddress/')).toBe(false);
  expect(redirect(api, 'http://localhost:8080/login')).toBe(true);
  expect(redirect(api, 'https://sso.example.test/authorize')).toBe(true);
});

test("a failure's curl line and the recording show the headers the client added: User-Agent, Accept-Encoding", () => {
  // indep98: a gzipped answer labelled application/octet-stream failed GEN-JSON-CONTENT-TYPE, and its curl line,
  // without --compressed, got the plain JSON back.
  const exchange = answered(OPERATIONS.getProduct, 200, '{}');
  const curl = curlOf(exchange, []);
  expect(curl).toMatch(/^curl -sS --compressed -X GET /);
  expect(curl).toContain(`-H "User-Agent: ${USER_AGENT}"`);
  const { request } = exchange;
  const answer = { status: 200, headers: {}, body: Buffer.from('{}'), durationMs: 1, sizeBytes: 2, truncated: false };
  const [record] = recordsOf(
    request,
    { kind: 'answer', response: answer, attempts: [] },
    {
      requirements: [],
      credentials: 'valid',
    },
  );
  expect(record?.requestHeaders).toMatchObject({ 'Accept-Encoding': 'gzip, deflate, br', 'User-Agent': USER_AGENT });
});

test('the integer a JSON number writes, in digits, exactly: an exponent or a fraction of zeros too', () => {
  // indep112: PHP writes an integer that became a float as 1.58e+18; JSON.parse would round a 64-bit one.
  const integers = {
    '1580000000000000001': '1580000000000000001',
    '1.58e+18': '1580000000000000000',
    '1.152921504606846979E18': '1152921504606846979',
    '-25.000': '-25',
    '1500e-2': '15',
  };
  for (const [number, digits] of Object.entries(integers)) expect(integerDigits(number), number).toBe(digits);
  for (const notAnInteger of ['1.5', '15e-2', '1e', '0x10', ' 1', '+1', '1e999999999'])
    expect(integerDigits(notAnInteger)).toBeUndefined();
});

test("a refusal's status is judged on refusals: not on a 2xx neither a documented success nor a refusal", async () => {
  // indep115: a creation coerced and carried out (201, a fresh addressId) under a fault whose success is `true` where
  // §4.2 shows "ok" failed OP2-SUCCESS-SHAPE, and also warned that invalid input was not answered with a 4xx.
  const status = negativeDataRejection('GEN-NO-TYPE-COERCION').assertions.find(
    (a) => a.id === 'HTTP-INVALID-INPUT-4XX',
  );
  const judge = async (code: number, body: string) => {
    try {
      return await status?.judge(answered(OPERATIONS.createShippingAddress, code, body), { config: loadConfig() });
    } catch (e) {
      return e instanceof CheckFailure ? e.data.title : e;
    }
  };
  expect(await judge(201, '{"success":true,"msg":"Dirección agregada","addressId":517}')).toEqual({
    notApplicable: expect.stringContaining('neither a documented success nor a refusal'),
  });
  // A refusal in HTTP 200, in the documented shape, is one: not a 4xx, as HTTP practice asks.
  expect(await judge(200, '{"success":"error","msg":"direccion must be a string"}')).toBe(
    'Invalid input not answered with a 4xx',
  );
  expect(await judge(400, '{"success":"error","msg":"direccion must be a string"}')).toBeUndefined();
});
