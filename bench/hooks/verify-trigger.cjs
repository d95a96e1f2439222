// autocannon verifyBody hook: exactly the answer of sending \`send\` to a draft.
'use strict';
const EXPECTED =
  '{"data":{"triggerTransactionEvent":{"sourceStateKey":"draft","targetStateKey":"in_progress"}}}';
module.exports = function verifyBody(body) {
  return String(body) === EXPECTED;
};
