// All of /api (tRPC, REST, auth, OpenAPI) is served by one handler shared with the tests.
import { handleApi } from "../../../server/gateway/handler";

export const dynamic = "force-dynamic";

const handler = (req: Request) => handleApi(req);
export { handler as GET, handler as POST, handler as PATCH, handler as PUT, handler as DELETE };
