/** The client in workerd: a module worker, served on the socket the config names. */
import { handle } from "../client.js"

export default { fetch: handle }
