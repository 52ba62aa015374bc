// A raw HTTP client for the reference's self-tests: sends exactly the path, headers and bytes given
// (invalid percent-encoding, wrong content types, oversized bodies), and reads the body as the mode sent it.
import { request } from 'node:http';
import { withoutByteOrderMark } from '../src/model/text';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  contentType: string;
  text: string;
  /** A JSON body parsed; a text/plain body as its string; undefined when empty. */
  value: unknown;
}

export interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON (with application/json unless a content-type is given); a string or Buffer as is. */
  body?: unknown;
  /** Send the body in chunks without Content-Length (chunked transfer encoding). */
  chunked?: boolean;
}

export function send(
  baseUrl: string,
  path: string,
  { method = 'GET', headers = {}, body, chunked = false }: RawRequest = {},
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const payload =
    body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const allHeaders: Record<string, string | number> = { ...headers };
  if (payload !== undefined) {
    if (
      !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type') &&
      typeof body !== 'string' &&
      !Buffer.isBuffer(body)
    ) {
      allHeaders['content-type'] = 'application/json';
    }
    if (!chunked) allHeaders['content-length'] = Buffer.byteLength(payload);
  }
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method, path, headers: allHeaders, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const contentType = String(res.headers['content-type'] ?? '');
          let value: unknown = text === '' ? undefined : text;
          // A byte order mark (the fault json-bom's) is not part of the JSON text.
          const json = withoutByteOrderMark(text);
          // A body labelled JSON that is not (the fault plain-error-raw-labelled-json's) stays its text.
          if (text !== '' && contentType.startsWith('application/json')) {
            try {
              value = JSON.parse(json) as unknown;
            } catch {}
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, contentType, text, value });
        });
      },
    );
    // The server may answer (413) and close before the whole body is written; the answer still counts.
    req.on('error', reject);
    if (payload !== undefined && chunked) {
      const bytes = Buffer.from(payload);
      for (let at = 0; at < bytes.length; at += 64 * 1024) req.write(bytes.subarray(at, at + 64 * 1024));
    } else if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** The Authorization header for a token. */
export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
