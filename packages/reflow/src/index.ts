// @reflow/reflow: the use case. The only place bookings and tasks meet.
export { ReflowInputError } from './errors.ts';
export { reflowArgsSchema, resolveReflowArgs, type ReflowArgs, type ReflowInput } from './reflow-args.ts';
export { reflowResultSchema, toCallToolResult, type ReflowResult } from './reflow-result.ts';
export { reflowTaskHandler, REFLOW_KIND, type ReflowTaskOptions } from './reflow-task.ts';
export { importSite, validateSiteFile, type ImportSummary } from './import-site.ts';
export { siteFileSchema, type SiteFileInput } from './site-file-schema.ts';
export { listBookings, listBookingsArgsSchema, listRooms } from './listings.ts';
export {
  decideReflow,
  operatorWaitMessage,
  pendingOperatorApproval,
  OPERATOR,
  type OperatorApprovalRequest,
  type OperatorDecision,
} from './operator-approval.ts';
export { readAppliedVersions } from './applied-versions.ts';
export {
  revertTaskHandler,
  revertResultSchema,
  REVERT_KIND,
  type RevertInput,
  type RevertResult,
} from './revert-task.ts';
