// A bad task names the file and the field at fault, as a 400 with one issue per problem.
import { AppError, badRequest } from "../../platform/errors";

export function taskError(file: string, field: string | null, message: string): AppError {
  const where = field ? `${file}: ${field}` : file;
  return badRequest(`${where}: ${message}`, [{ path: field ? `${file}#${field}` : file, message }]);
}

export function tooLarge(what: string): AppError {
  return new AppError("PAYLOAD_TOO_LARGE", what);
}
