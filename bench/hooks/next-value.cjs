// autocannon setupRequest hook (worker mode loads hooks as CommonJS files): each request of a run, over all
// its connections, gets the next of the run's values in place of the placeholder; once they run out, a request
// says "exhausted", which the server refuses, so the run fails rather than reuse a value.
'use strict';
let next = 0;
module.exports = function setupRequest(request) {
  const index = next;
  next += 1;
  const value = index < request.values.length ? request.values[index] : 'exhausted';
  request.body = request.bodyTemplate.replace(request.placeholder, value);
  return request;
};
