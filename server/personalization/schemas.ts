import { z } from "zod";
import { IdSchema } from "../platform/schemas";

/** An end user's id as X-User-Id carries it (proxy/sessionMeta.ts IDENTITY_ID). */
export const EndUserIdSchema = z.string().regex(/^[\w.@:+-]{1,128}$/, "an end-user id as X-User-Id sends it");

export const EndUsersListInput = z.object({ experimentId: IdSchema });
export const EndUserInput = z.object({ experimentId: IdSchema, endUserId: EndUserIdSchema });
export const AdapterTrainInput = z.object({ experimentId: IdSchema });
