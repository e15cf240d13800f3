// Mocha 11 loads a --reporter file as a CommonJS module whose export is the reporter itself; the
// bundled test/harness/countingReporter.ts exports it as `default`.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS file by necessity
module.exports = require('../out/test/harness/countingReporter.js').default;
