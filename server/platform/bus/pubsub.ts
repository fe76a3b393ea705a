import type { Redis } from "ioredis";
import { CHANNELS, decodeChannel, encodeChannel, type ChannelName, type ChannelPayload } from "./contracts";
import { createRedis, redis, rkey } from "../redis";
import { logger } from "../log";

const log = logger("bus");

export async function publish<C extends ChannelName>(channel: C, payload: ChannelPayload<C>): Promise<void> {
  await redis().publish(rkey(CHANNELS[channel].name), encodeChannel(channel, payload));
}

/** Subscribes on a dedicated connection; returns an unsubscribe function. Bad payloads are logged and skipped. */
export async function subscribe<C extends ChannelName>(
  channel: C,
  onMessage: (payload: ChannelPayload<C>) => void,
): Promise<() => Promise<void>> {
  const sub: Redis = createRedis();
  const name = rkey(CHANNELS[channel].name);
  sub.on("message", (ch, raw) => {
    if (ch !== name) return;
    try {
      onMessage(decodeChannel(channel, raw));
    } catch (err) {
      log.warn(`dropped malformed ${channel} message: ${(err as Error).message}`);
    }
  });
  await sub.subscribe(name);
  return async () => {
    await sub.unsubscribe(name).catch(() => {});
    sub.disconnect();
  };
}
