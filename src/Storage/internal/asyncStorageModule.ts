/**
 * `#asyncStorage` everywhere but React Native: there is no AsyncStorage to load, and no import of
 * the optional peer for a bundler to trip over (Vite, webpack and rollup would report it missing).
 */
export const importAsyncStorage = async (): Promise<unknown> => undefined
