// A token command for the reference: mints a token at its POST /_tokens (reference mode expiring-token, or any).
// The global setup runs it after starting the embedded reference, whose URL the command reads from the environment.

/** Mints at the reference whose root URL the environment variable `urlVariable` holds. */
export const mintTokenCommand = (urlVariable: string): string =>
  `node -e "fetch(process.env.${urlVariable} + '/_tokens', { method: 'POST' })` +
  `.then(async (r) => { if (!r.ok) process.exit(1); process.stdout.write(await r.text()); })"`;

export const MINT_TOKEN_COMMAND = mintTokenCommand('RSF_EMBEDDED_URL');
