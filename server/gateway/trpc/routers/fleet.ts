import { scopedProcedure, router } from "../trpc";
import { fleetOverview } from "../../../metrics/fleet";

export const fleetRouter = router({
  overview: scopedProcedure("read").query(({ ctx }) => fleetOverview(ctx.principal)),
});
