// A TCP relay that can be cut and restored, to take Postgres "down" for one client without touching the
// server: while down, connections are refused and open ones are reset.
import net, { type AddressInfo, type Socket } from "node:net";

export async function startForwarder(target: { host: string; port: number }) {
  let server: net.Server | null = null;
  const sockets = new Set<Socket>();
  let port = 0;
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
        client.pipe(upstream).pipe(client);
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
  await up();
  return { port: () => port, up, down, close: down };
}
