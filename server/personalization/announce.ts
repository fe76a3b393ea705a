// A user's served adapter changed (a version promoted, registered, rolled back, or the user deleted): proxies drop
// their held route for that user and preload a PEFT folder into their engine (proxy/userAdapterEvents.ts). Without
// Redis the change still serves within the proxies' route hold (2 s), so a failed publish is not an error.
import { publish } from "../platform/bus/pubsub";

export function announceAdapterChange(experimentId: string, endUserId: string): void {
  void publish("userAdapter", { experimentId, endUserId }).catch(() => {});
}
