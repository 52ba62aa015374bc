// What an error on the wire means to a user: Node's and OpenSSL's codes, read as a kind of no-answer (no-answer.ts)
// and a message that says what to do, naming the setting or variable that can help. No I/O here.
import { firstLines } from '../model/text';
import type { NoAnswerKind } from './no-answer';

/** Errors of the request we built (a header Node refuses), not of the target: they must fail loudly, not count. */
const OWN_ERRORS = [
  'ERR_INVALID_CHAR',
  'ERR_INVALID_HTTP_TOKEN',
  'ERR_HTTP_INVALID_HEADER_VALUE',
  'ERR_UNESCAPED_CHARACTERS',
  'ERR_INVALID_URL',
];

/**
 * OpenSSL's verdicts on a certificate chain that this machine has no authority for: a self-signed certificate, or one
 * from a private CA (usual on staging servers), which NODE_EXTRA_CA_CERTS can name.
 */
const UNTRUSTED_CERTIFICATE = [
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
];

/** TLS alerts of a target that asks for a client certificate (mutual TLS) and got none it accepts. */
const CLIENT_CERTIFICATE_REFUSED = [
  'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
  'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE',
  'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA',
  'ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN',
];

/** The exchange's one deadline passed (RSF_REQUEST_TIMEOUT_MS). */
export class DeadlineExceeded extends Error {}

/**
 * The target closed the connection before the whole body came: a proxy that cut it, a server that died while it
 * wrote. How many bytes came, as sent (before any decompression), and how many its Content-Length announced.
 */
export class BodyCutShort extends Error {
  readonly code = 'ECONNRESET';

  constructor(
    readonly receivedBytes: number,
    readonly announcedBytes: number | undefined,
  ) {
    super('socket hang up');
  }
}

/** A body that its Content-Encoding does not decode: one a server or a proxy mislabels, or a broken stream. */
export class UndecodedBody extends Error {
  readonly code: string;

  constructor(
    readonly contentEncoding: string,
    cause: unknown,
  ) {
    super(String((cause as Error)?.message ?? cause));
    this.code = codeOf(cause);
  }
}

/**
 * A body in a content coding of IANA's registry that the suite did not ask for and cannot read (zstd, compress):
 * RFC 9110 §12.5.3 has a server answer with a coding the request accepts, or none.
 */
export class UnaskedCoding extends Error {
  constructor(coding: string, acceptEncoding: string) {
    super(
      `the body is in the ${coding} content coding, which the suite did not ask for (Accept-Encoding: ` +
        `${acceptEncoding}) and cannot read`,
    );
  }
}

/** A byte count in words: "1 byte", "10 bytes". */
const bytes = (n: number): string => `${n} ${n === 1 ? 'byte' : 'bytes'}`;

/** The run was interrupted in this process (interrupt.ts): the request was cut short, or not sent. */
export class Interrupted extends Error {}

export const codeOf = (error: unknown): string => String((error as NodeJS.ErrnoException)?.code ?? '');

/** Whether `error` is of the request we built, not of the target. */
export function isOwnError(error: unknown): boolean {
  return OWN_ERRORS.includes(codeOf(error));
}

/**
 * Where a refused connection went, as " at 127.0.0.1:5450": the address a name resolved to, which the URL does not
 * show (indep105: localhost, 127.0.0.1 alone on that machine, for a server listening on ::1 only). Each address when
 * several were tried (Node's happy eyeballs throws an AggregateError).
 */
function atAddress(error: unknown): string {
  const tried = error instanceof AggregateError ? error.errors : [error];
  const where = tried.flatMap((e) => {
    const { address, port } = (e ?? {}) as { address?: unknown; port?: unknown };
    if (typeof address !== 'string') return [];
    const host = address.includes(':') ? `[${address}]` : address;
    return [typeof port === 'number' ? `${host}:${port}` : host];
  });
  return where.length === 0 ? '' : ` at ${where.join(' and ')}`;
}

/** The kind of no-answer an error of the wire is, and a message that says what to do about it. */
export function describeError(
  error: unknown,
  { timeoutMs, maxHeaderBytes }: { timeoutMs: number; maxHeaderBytes: number },
): { kind: NoAnswerKind; message: string } {
  if (error instanceof DeadlineExceeded)
    return { kind: 'timeout', message: `no complete answer within ${timeoutMs} ms` };
  if (error instanceof Interrupted)
    return { kind: 'interrupted', message: 'the run was interrupted (Ctrl-C, or a signal) before the answer came' };
  if (error instanceof UnaskedCoding) return { kind: 'unreadable-body', message: error.message };
  if (error instanceof BodyCutShort) {
    const { receivedBytes: received, announcedBytes: announced } = error;
    const what =
      announced === undefined
        ? `after ${bytes(received)} of the body, before its end`
        : `after ${received} of the ${bytes(announced)} its Content-Length announced`;
    return { kind: 'reset', message: `the target closed or reset the connection ${what} (ECONNRESET)` };
  }
  const code = codeOf(error);
  const firstLine = firstLines(String((error as Error)?.message ?? error));
  if (code === 'ECONNREFUSED')
    return { kind: 'refused', message: `connection refused (ECONNREFUSED)${atAddress(error)}` };
  if (code === 'ECONNRESET' || code === 'EPIPE' || firstLine === 'socket hang up') {
    return { kind: 'reset', message: `connection closed or reset by the target (${code || firstLine})` };
  }
  if (UNTRUSTED_CERTIFICATE.includes(code)) {
    const remedy = "if a private CA signed it, give that CA's PEM file in NODE_EXTRA_CA_CERTS";
    return { kind: 'certificate', message: `the TLS certificate is not trusted on this machine (${code}); ${remedy}` };
  }
  // Dates and names, which no CA file mends: the certificate is the target's to fix, or the URL.
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    const when = code === 'CERT_HAS_EXPIRED' ? 'has expired' : "is not valid yet (or this machine's clock is wrong)";
    const remedy = 'the target must renew it: the suite never turns certificate checks off';
    return { kind: 'certificate', message: `the target's TLS certificate ${when} (${code}); ${remedy}` };
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    const names = firstLine.replace(/^Hostname\/IP does not match certificate's altnames: /, '');
    const remedy = 'use a host name it names in RSF_TARGET_URL';
    return {
      kind: 'certificate',
      message: `the target's TLS certificate is for other names (${code}): ${names}; ${remedy}`,
    };
  }
  if (CLIENT_CERTIFICATE_REFUSED.includes(code)) {
    const remedy =
      'give one in RSF_TLS_CLIENT_CERT and RSF_TLS_CLIENT_KEY, or check that it is the one the target expects';
    return {
      kind: 'other',
      message: `the target refused the TLS connection without a client certificate it accepts (${code}); ${remedy}`,
    };
  }
  // A name that does not resolve: a typo, or a host that only a VPN or another network's DNS knows.
  const host = (error as { hostname?: string }).hostname ?? 'of the target';
  if (code === 'ENOTFOUND') {
    const check = 'check it, and whether it is known only on a VPN or another network';
    return { kind: 'other', message: `the host name ${host} does not resolve (ENOTFOUND): ${check}` };
  }
  if (code === 'EAI_AGAIN')
    return { kind: 'other', message: `the host name ${host} could not be looked up: DNS did not answer (EAI_AGAIN)` };
  // An address this machine has no route to: an internal one, reached from a VPN or another network only.
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') {
    const address = (error as { address?: string }).address ?? 'of the target';
    const check = 'it may be reached only on a VPN or another network, or through a proxy (HTTPS_PROXY, HTTP_PROXY)';
    return { kind: 'other', message: `this machine has no route to the address ${address} (${code}): ${check}` };
  }
  // An https URL to a port that answers in plain HTTP: OpenSSL reads the answer's first bytes as a TLS record.
  if (/wrong version number/.test(firstLine))
    return {
      kind: 'other',
      message:
        'the target does not speak TLS at this port (wrong version number): RSF_TARGET_URL says https, and the ' +
        'port answers in plain HTTP or another protocol',
    };
  // OpenSSL names the alert only in its message (code EPROTO).
  if (/alert no application protocol/.test(firstLine))
    return {
      kind: 'other',
      message:
        'the target refused HTTP/1.1 in the TLS handshake (alert no_application_protocol): it speaks only HTTP/2 ' +
        'or another protocol, and the suite speaks HTTP/1.1',
    };
  // A target that offers only TLS 1.0 or 1.1, which Node 20 no longer speaks by default (its alert, or its offer).
  if (/alert protocol version|unsupported protocol/.test(firstLine))
    return {
      kind: 'other',
      message:
        "the target's TLS versions and this client's do not meet (protocol version): the target offers only TLS 1.0 " +
        'or 1.1, which Node refuses by default. The target should offer TLS 1.2 or later; to test it as it is, run ' +
        "with NODE_OPTIONS='--tls-min-v1.0 --tls-cipher-list=DEFAULT@SECLEVEL=0'",
    };
  if (code === 'ERR_PROXY_TUNNEL') return { kind: 'other', message: firstLine };
  if (code === 'HPE_HEADER_OVERFLOW')
    return {
      kind: 'not-http',
      message: `the answer's headers are larger than ${maxHeaderBytes / 1024} KiB (${code})`,
    };
  // The bytes do not begin with a status line: no HTTP at all.
  if (code === 'HPE_INVALID_CONSTANT') return { kind: 'not-http', message: `the answer is not HTTP (${code})` };
  // HTTP that breaks its own framing (two Content-Lengths, a bad chunk size): Node's parser says what it met.
  if (code.startsWith('HPE_')) {
    const reason = firstLine.replace(/^Parse Error: /, '');
    return { kind: 'not-http', message: `the answer is not valid HTTP/1.1: ${reason} (${code})` };
  }
  if (code.startsWith('Z_') || code.startsWith('ERR_BROTLI') || code === 'ERR__ERROR_FORMAT_PADDING_1') {
    const as = error instanceof UndecodedBody ? ` as its Content-Encoding, ${error.contentEncoding}, says` : '';
    return { kind: 'unreadable-body', message: `the body could not be decompressed${as} (${code})` };
  }
  return { kind: 'other', message: code && !firstLine.includes(code) ? `${code}: ${firstLine}` : firstLine };
}
