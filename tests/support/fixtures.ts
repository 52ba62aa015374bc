// The only module that exports `test` and `expect`. Spec files import from here and nowhere else.
import { test as base, expect as baseExpect } from '@playwright/test';

export const test = base;
export const expect = baseExpect;
