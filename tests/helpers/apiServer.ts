import { handleApi } from "../../server/gateway/handler";
import { serveFetch } from "../../bench/lib/httpAdapter";

/** The real /api surface (tRPC, REST, auth) over HTTP, without building Next. */
export function startApiServer() {
  return serveFetch(handleApi);
}
