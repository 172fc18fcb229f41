import * as net from "node:net";

/** Progress and notes go to stderr, so stdout holds only the figures. */
export function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** A port that was free a moment ago, for a child system's gateway. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
