// A TCP relay that can be cut and restored, to take Postgres "down" for one client without touching the
// server: while down, connections are refused and open ones are reset. Stalled, it holds what clients send
// (connections open, queries unanswered: a hung database) until `resume`.
import net, { type AddressInfo, type Socket } from "node:net";

export async function startForwarder(target: { host: string; port: number }) {
  let server: net.Server | null = null;
  const sockets = new Set<Socket>();
  let port = 0;
  let stalled = false;
  const held: (() => void)[] = [];
  const track = (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => s.destroy());
  };
  const up = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        track(client);
        track(upstream);
        client.on("data", (d: Buffer) => (stalled ? held.push(() => upstream.write(d)) : upstream.write(d)));
        upstream.pipe(client);
        client.on("close", () => upstream.destroy());
        upstream.on("close", () => client.destroy());
      });
      server.listen(port, "127.0.0.1", () => {
        port = (server!.address() as AddressInfo).port;
        resolve();
      });
    });
  const down = async () => {
    const s = server;
    server = null;
    for (const sock of sockets) sock.destroy();
    if (s) await new Promise<void>((r) => s.close(() => r()));
  };
  const stall = () => void (stalled = true);
  const resume = () => {
    stalled = false;
    for (const send of held.splice(0)) send();
  };
  await up();
  return { port: () => port, up, down, stall, resume, close: down };
}
