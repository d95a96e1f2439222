// autocannon verifyBody hook: a createTransaction answer without errors, whose ids are UUIDs.
'use strict';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
module.exports = function verifyBody(body) {
  try {
    const parsed = JSON.parse(String(body));
    const payload = parsed && parsed.data && parsed.data.createTransaction;
    return (
      parsed.errors === undefined &&
      Boolean(payload) &&
      UUID.test(String(payload.transactionId)) &&
      UUID.test(String(payload.transmitToken))
    );
  } catch {
    return false;
  }
};
