import { describe, expect, it } from "vitest";
import { assertEgressAllowed, EgressRefusedError, type EgressPolicy } from "../../../server/platform/egress";

const strict: EgressPolicy = { allowPrivate: false, allowlist: [] };

describe("egress policy (SSRF)", () => {
  it("refuses loopback, private, link-local/metadata and IPv6 local addresses by default", async () => {
    for (const url of [
      "http://127.0.0.1:30001/v1",
      "http://10.1.2.3/v1",
      "http://192.168.1.1",
      "http://172.20.0.1",
      "http://169.254.169.254/latest/meta-data",
      "http://[::1]:8000",
      "http://[fd00::1]/",
      "http://0.0.0.0:80",
      "http://localhost:8000",
      "http://[::ffff:127.0.0.1]/",
    ]) {
      await expect(assertEgressAllowed(url, strict), url).rejects.toBeInstanceOf(EgressRefusedError);
    }
  });

  it("explains how to allow the address", async () => {
    await expect(assertEgressAllowed("http://127.0.0.1:30001/v1", strict)).rejects.toThrow(
      /UPSTREAM_ALLOWLIST=127\.0\.0\.1:30001/,
    );
  });

  it("allows public addresses, allow-listed hosts, host:port pairs and CIDRs", async () => {
    await expect(assertEgressAllowed("https://93.184.216.34/v1", strict)).resolves.toBeUndefined();
    await expect(
      assertEgressAllowed("http://127.0.0.1:30001/v1", { allowPrivate: false, allowlist: ["127.0.0.1:30001"] }),
    ).resolves.toBeUndefined();
    await expect(
      assertEgressAllowed("http://127.0.0.1:30002/v1", { allowPrivate: false, allowlist: ["127.0.0.1:30001"] }),
    ).rejects.toBeInstanceOf(EgressRefusedError);
    await expect(
      assertEgressAllowed("http://10.4.5.6:8000", { allowPrivate: false, allowlist: ["10.0.0.0/8"] }),
    ).resolves.toBeUndefined();
    await expect(
      assertEgressAllowed("http://127.0.0.1:9", { allowPrivate: true, allowlist: [] }),
    ).resolves.toBeUndefined();
  });

  it("refuses other schemes and credentials in URLs", async () => {
    await expect(assertEgressAllowed("file:///etc/passwd", strict)).rejects.toThrow(/only http/);
    await expect(assertEgressAllowed("http://user:pw@93.184.216.34/", strict)).rejects.toThrow(/credentials/);
  });
});
