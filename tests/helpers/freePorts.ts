// Ports the OS says are free right now: `n` listeners on port 0 at once (so the ports differ), closed again. A port
// drawn at random from a fixed range can be one another test's outgoing connection holds (the OS hands those out
// from 32768–60999): `npm start`'s embedded Postgres once failed to bind such a port in a full CI run.
import { createServer, type Server } from "node:net";

export async function freePorts(n: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const s = createServer();
      servers.push(s);
      await new Promise<void>((resolve, reject) => {
        s.once("error", reject);
        s.listen(0, "127.0.0.1", () => resolve());
      });
    }
    return servers.map((s) => {
      const address = s.address();
      if (!address || typeof address === "string") throw new Error("no TCP address");
      return address.port;
    });
  } finally {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  }
}
