/**
 * The guards' pinned answers (SPEC 6.3), the same on both Effect lines.
 */

/** The pinned error texts of SPEC 6.3. */
export const ErrorText = {
  sessionIdRequired: "Session ID required",
  invalidSession: "Invalid session",
  unavailable: "Authentication service unavailable",
  authenticationRequired: "Authentication required",
  crossSite: "Cross-site request refused",
  userTypes: (types: ReadonlyArray<string>) =>
    `Insufficient permissions. Required user types: ${types.join(", ")}`,
  permission: (permission: string) => `Permission required: ${permission}`
} as const
