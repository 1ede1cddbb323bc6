// `node --import ./test/helpers/recordModules.mjs …`: appends the URL of every module the program loads to the file
// named by CAIRN_TEST_MODULE_LOG (the hooks run in a thread of their own, so they write to a file).
import { register } from 'node:module';

register('./recordModulesHooks.mjs', import.meta.url);
