import { encodeOperand, OPERAND_KIND, type OperatorName } from "./operand.js"

/** Builds `{ operator, value }` after checking the value as `where` would (throws at the call). */
export const makeFilter = <Op extends OperatorName, V>(
  operator: Op,
  value: V,
  fn: string,
  arg: string
): { readonly operator: Op; readonly value: V } => {
  encodeOperand(OPERAND_KIND[operator], value, fn, arg)
  return { operator, value }
}
