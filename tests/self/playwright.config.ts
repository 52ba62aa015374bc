// `npm test`: the project's own tests (schemas, catalogue, reference server, reporter, mutation matrix).
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  testIgnore: '**/fixtures/**',
  outputDir: '../../test-results/self',
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  workers: 2,
  timeout: 60_000,
  reporter: [['list']],
});
