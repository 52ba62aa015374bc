// The few generic points where a fault (reference/faults.ts) can bend the server's behaviour.
import type { ErrorObject } from 'ajv';
import type { AuthRule, OperationNumber } from '../src/model/operations';
import type { ModeChoices } from './modes';
import type { Reply } from './reply';
import type { SeedProduct } from './seed';

/** What the caller presented: no header, the accepted token, or anything else. */
export type Credentials = 'absent' | 'valid' | 'invalid';

/** Business rules that handlers check through `ctx.holds(rule, condition)`. */
export type BusinessRule =
  | 'category-exists' // op 4
  | 'cart-product-exists' // op 5
  | 'cart-type-allowed' // op 5
  | 'address-format' // op 7
  | 'product-exists' // op 8
  | 'channel-token'; // op 15

export type ProductView = Record<string, unknown>;

export interface ViewFacts {
  loggedIn: boolean;
  /** What the caller presented, before any fault re-judged it. */
  presented: Credentials;
  product: SeedProduct;
  choices: ModeChoices;
  /** The product's amount in the account's cart, whoever asks. */
  accountCart: number;
}

/** What the reply hook may look at besides the reply. */
export interface ExchangeFacts {
  op: OperationNumber;
  /** Parsed request body (after validation), or undefined. */
  body: unknown;
  loggedIn: boolean;
  /** The request's Host header: the address the caller reached this server at. */
  host: string;
  /** The path parameters, decoded once as the route read them; none before the route is found. */
  params?: Readonly<Record<string, string>>;
}

export interface FaultHooks {
  /** Choices of a conforming mode the fault's profile makes instead of the reference's (a store that deletes once). */
  choices?: Partial<ModeChoices>;
  /** Path segment served instead of "v1". */
  versionSegment?: string;
  /** Replaces an operation's rule for the Authorization header (§5): skip or demand credentials. */
  authRule?: (op: OperationNumber, rule: AuthRule) => AuthRule;
  /** Rewrites the Authorization header as presented, before it is read; `token` is the one the server issued. */
  authorization?: (op: OperationNumber, header: string | undefined, token: string) => string | undefined;
  /** Re-judges the presented credentials. */
  credentials?: (op: OperationNumber, presented: Credentials) => Credentials;
  /** Compares a presented Bearer token with the valid one instead of exact equality. */
  tokenMatches?: (op: OperationNumber, presented: string, token: string) => boolean;
  /** Compares a channel token in the path (op 15) with the channel's instead of exact equality. */
  channelTokenMatches?: (
    presented: string,
    token: string,
    isAccessToken: (token: string) => boolean,
    /** The Authorization header as presented, which operation 15 does not carry (§5.3). */
    bearer: Credentials,
  ) => boolean;
  /** Operation 15 finds the channel by the token in its path, whatever postsaleInboundId the path names. */
  findsChannelByToken?: boolean;
  /** Ajv errors of the request schema that do not count; `body` is the request's, as parsed. */
  ignoresRequestError?: (op: OperationNumber, error: ErrorObject, body: unknown) => boolean;
  /** A business rule that is not enforced. */
  ignoresRule?: BusinessRule;
  /** The operations whose body, when it is not valid JSON, is replaced by a valid one, so the request "succeeds". */
  acceptsMalformedJson?: (op: OperationNumber) => boolean;
  /** Request bodies read as lenient parsers read them (parseLenientJson), where the server's parser is strict. */
  readsLenientJson?: boolean;
  /** Changes the product detail (op 8) after it is built. */
  productView?: (view: ProductView, facts: ViewFacts) => ProductView;
  /** Changes a reply (status, body, outcome) before the mode renders it. */
  reply?: (reply: Reply, facts: ExchangeFacts) => Reply;
  /** Changes the Content-Type of a rendered reply. */
  contentType?: (reply: Reply, contentType: string) => string;
  /** A rendered JSON body in ISO-8859-1 (labelled so), a character beyond it as "?", as a legacy server sends it. */
  latin1Json?: boolean;
  /** A rendered JSON body after a UTF-8 byte order mark, as some .NET and Java writers send it. */
  jsonBom?: boolean;
  /** Plain strings of these answers sent raw, labelled application/json all the same (a middleware's default). */
  rawPlainLabelledJson?: 'errors' | 'successes';
}
