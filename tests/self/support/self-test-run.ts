// How a process knows that it is part of npm test's run of the self-tests: tests/self/playwright.config.ts names the
// run in this variable as its runner starts, and the workers inherit it. A child run gets none of it (childEnv).
export const SELF_TEST_RUN_ENV = 'RSF_SELF_TEST_RUN';
