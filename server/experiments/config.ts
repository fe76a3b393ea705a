// MOVED: the experiment config schema now lives in server/config/experimentConfig.ts (edit it there; secrets
// sealing in server/config/secrets.ts). This forwarding module is removed before the session ends.
export * from "../config/experimentConfig";
