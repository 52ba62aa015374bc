// Arbitraries of request bodies and probes, one factory per concept. Each takes the configured valid body as its
// base and is built with map/chain, so that fast-check shrinks what it generates.
export {
  JUST_ABOVE_MAX,
  UTILITY_MAX,
  categoryUpdateWithUtility,
  nextUp,
  utilityAbove100,
  utilityInRange,
  validCategoryUpdate,
} from './category';
export {
  ADDRESS_FIELDS,
  PLACE_FIELDS,
  STREET_FIELDS,
  addressBody,
  addressCase,
  addressPresence,
  addressRule,
  everyAddressCase,
  namesField,
  type AddressCase,
  type AddressField,
  type AddressVerdict,
  type Presence,
} from './address';
export {
  bodyWithFieldDropped,
  bodyWithFieldRetyped,
  everyFieldDropped,
  everyRequiredFieldDropped,
  everyRequiredFieldNull,
  valueNotOfType,
  type FieldMutation,
} from './body-mutations';
export {
  CART_DEFECTS,
  badCartItem,
  badCartItems,
  badCartItemsOfAmountZero,
  type CartCase,
  type CartData,
  type CartDefect,
} from './cart';
export { elementOf, everyStockProbe, stockProbe, type StockProbe } from './product';
export { storefrontText } from './text';
export {
  INTEGER_EDGES,
  MAX_TEXT_LENGTH,
  PATH_TEXT_EXAMPLE,
  TEXT_EXAMPLES,
  customerText,
  integerAtEdges,
  nonAsciiPathText,
  numberAtEdges,
  pathText,
  positiveIntegerAtEdges,
  validBody,
  validBodyExamples,
  validCartInputs,
  validCartItems,
  validBodyInputs,
  cutToConfiguredLengths,
  configuredBodyOf,
  VALID_BODY_INPUTS,
  type BodyOperation,
  validPathExamples,
  validPathParams,
  type PathValue,
  type ValidBodyOptions,
} from './valid-input';
