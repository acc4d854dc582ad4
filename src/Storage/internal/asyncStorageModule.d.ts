// The optional peer is not installed where this package is built; its module is only imported lazily.
declare module "@react-native-async-storage/async-storage" {
  const AsyncStorage: unknown
  export default AsyncStorage
}
