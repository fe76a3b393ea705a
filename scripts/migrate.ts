// `npm run db:migrate`: apply the committed migrations to DATABASE_URL with our migrator (deployments that
// do not use `npm start`, which migrates by itself).
import path from "node:path";
import { migrate } from "../server/platform/db/migrator";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("Set DATABASE_URL to the database to migrate.");
  process.exit(2);
}
const result = await migrate(url, path.resolve(import.meta.dirname, "../prisma/migrations"), (l) => console.log(l));
console.log(`${result.applied.length} applied, ${result.skipped.length} already up to date`);
