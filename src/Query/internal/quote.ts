/**
 * A name from a query string as a message quotes it: in double quotes, its control characters and
 * quotes escaped, at most 64 characters of it. A query string is the sender's to write, and an
 * error's message goes into logs and answers.
 */
export const quoted = (text: string): string =>
  // never cut between the halves of a surrogate pair
  JSON.stringify(text.length > 64 ? `${text.slice(0, 64).replace(/[\ud800-\udbff]$/, "")}…` : text)
