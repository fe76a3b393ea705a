// Console users (admin only).
import * as users from "../../users/service";
import { UserCreateInput, UserListInput, UserUpdateInput } from "../../users/schemas";
import { procedure } from "./define";
import { UsersCreateOutput, UsersListOutput, UsersUpdateOutput } from "./outputs/users";

export const userProcedures = {
  list: procedure({
    kind: "query",
    permission: "admin",
    tag: "admin",
    summary: "List users",
    input: UserListInput,
    rest: { method: "GET", path: "/users" },
    output: UsersListOutput,
    handler: ({ principal, input }) => users.listUsers(principal, input),
  }),
  create: procedure({
    kind: "mutation",
    permission: "admin",
    tag: "admin",
    summary: "Create a user",
    input: UserCreateInput,
    rest: { method: "POST", path: "/users", status: 201 },
    output: UsersCreateOutput,
    handler: ({ principal, input }) => users.createUser(principal, input),
  }),
  update: procedure({
    kind: "mutation",
    permission: "admin",
    tag: "admin",
    summary: "Change a user's role, name, password or disabled flag",
    input: UserUpdateInput,
    rest: { method: "PATCH", path: "/users/:id" },
    output: UsersUpdateOutput,
    handler: ({ principal, input }) => users.updateUser(principal, input),
  }),
};
