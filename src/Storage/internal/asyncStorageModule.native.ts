/**
 * `#asyncStorage` under the `react-native` condition: the optional peer
 * `@react-native-async-storage/async-storage`, loaded on first use. The specifier stays a literal
 * inside `try`: Metro bundles it as an optional dependency, and an app without it gets `undefined`.
 */
export const importAsyncStorage = async (): Promise<unknown> => {
  try {
    // biome-ignore lint/suspicious/noTsIgnore: must hold whether the optional peer is installed or not
    // @ts-ignore: the optional peer is usually not installed, and its types are not needed here
    return await import("@react-native-async-storage/async-storage")
  } catch {
    return undefined
  }
}
