// Every entry point of the line resolves, with its types, from ES modules and CommonJS alike.

import * as Root from "svc-sdk"
import * as Auth from "svc-sdk/Auth"
import * as Client from "svc-sdk/Client"
import * as Query from "svc-sdk/Query"
import * as Storage from "svc-sdk/Storage"

void Root.createSvc
void Client.SvcClient
void Auth.CurrentUser
void Query.QueryBuilder
void Storage.detectStorage
