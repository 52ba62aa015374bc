// A token command for the embedded reference: mints a token at its POST /_tokens (reference mode expiring-token).
// The global setup runs it after starting the reference, whose URL the command reads from the environment.
export const MINT_TOKEN_COMMAND =
  `node -e "fetch(process.env.RSF_EMBEDDED_URL + '/_tokens', { method: 'POST' })` +
  `.then(async (r) => { if (!r.ok) process.exit(1); process.stdout.write(await r.text()); })"`;
