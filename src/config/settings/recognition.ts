// Recognition: the patterns that tell a success from a rejection, and read the stock labels (§2.6, §4.1, §7.3).
import { type Parsed, S, type SettingTable, regex } from './setting';

export const RECOGNITION_SETTINGS = {
  clientSuccessStatus: S(
    'RSF_CLIENT_SUCCESS_STATUS',
    '^(ok|success|successful|updated|true|200|[eé]xito|actualizad[oa])$',
    regex,
    'PATCH /client answers {status, message} for success and failure alike (§4.1): ' +
      'a status matching this pattern means success.',
  ),
  rejectionText: S(
    'RSF_REJECTION_TEXT',
    '\\b(error|invalid|inv[aá]lid[oa]?|not (allowed|found|exist|authori[sz]ed|authenticated|valid)|denied|' +
      'unauthori[sz]ed|forbidden|fail(ed|ure)?|mandatory|required|obligatori[oa]|no existe|no permitid[oa]|' +
      'no autorizad[oa]|no autenticad[oa])\\b',
    regex,
    'Where success is a plain string or an unspecified body (operations 5 and 12), ' +
      'a body matching this pattern is a rejection, so that HTTP 200 errors are recognised. Like every pattern here, ' +
      'it ignores letter case; written as /…/flags it takes those flags only (/^ERROR/u matches capitals only).',
  ),
  stockLabelNone: S(
    'RSF_STOCK_LABEL_NONE',
    '^(no stock|out of stock|sin stock|agotado)$',
    regex,
    'The "no stock" form of availableStockLabel (§2.6).',
  ),
  stockLabelExact: S(
    'RSF_STOCK_LABEL_EXACT',
    '^(\\d+) (units?|unidad(es)?)$',
    regex,
    'The "N units" form; group 1 is N.',
  ),
  stockLabelAtLeast: S(
    'RSF_STOCK_LABEL_AT_LEAST',
    '^(\\d+) (units? or more|unidad(es)? o m[aá]s)$',
    regex,
    'The "X units or more" form; group 1 is X.',
  ),
} satisfies SettingTable;

export type RecognitionConfig = Parsed<typeof RECOGNITION_SETTINGS>;
