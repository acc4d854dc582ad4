// The README's HttpApi middlewares, exported from a project that emits declarations.
import { HttpApiAuth } from "svc-sdk/Auth"

export class Admin extends HttpApiAuth.RequirePermission<Admin>()("Admin", "admin:write") {}
export class Staff extends HttpApiAuth.RequireUserType<Staff>()("Staff", ["staff", "admin"]) {}
export class Session extends HttpApiAuth.Tag<Session>()("Session", { query: false }) {}

/** Its hover names a short, exported type. */
export const check: HttpApiAuth.CheckTagClass<Admin, "Admin"> = Admin
