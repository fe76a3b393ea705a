// Shared by the tRPC handler and the console's batch link: the most procedures one HTTP request may carry.
// A page's queries batch well below it; the cap keeps one request (one rate-limit hit) from running hundreds.
export const TRPC_MAX_BATCH = 16;
