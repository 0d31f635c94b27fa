/**
 * Typed calls to the app's HTTP API from the browser, one module per resource. Every request body
 * is typed from its route's zod schema (`z.input`, imported type-only: no server code reaches the
 * browser bundle), so a body the route would refuse by its shape does not compile; `tests/client/api-contract.test.ts`
 * holds them together. Every failure becomes an `ApiError`. The UI reads through SWR (keys in
 * `cache-keys.ts`), which calls these as its fetchers: these modules stay the one place that knows
 * the URLs, the error shape and the sign-in redirect on a 401.
 */
import { adminApi } from "./admin";
import { authApi } from "./auth";
import { conversationsApi } from "./conversations";
import { filesApi } from "./files";
import { mcpApi } from "./mcp";
import { modelsApi } from "./models";
import { presetsApi } from "./presets";
import { projectsApi } from "./projects";
import { runsApi } from "./runs";
import { settingsApi } from "./settings";

export const api = {
  ...authApi,
  ...adminApi,
  ...conversationsApi,
  ...runsApi,
  ...filesApi,
  ...modelsApi,
  ...mcpApi,
  ...presetsApi,
  ...projectsApi,
  ...settingsApi,
};

export type { AddUserRequest, SignupSetting, UpdateUserRequest } from "./admin";
export type { LoginRequest, PasswordChangeRequest, SignupRequest } from "./auth";
export type {
  CreateConversationRequest,
  ExportFormat,
  ListConversationsRequest,
  SelectBranchRequest,
  UpdateConversationRequest,
} from "./conversations";
export { answerExportUrl, exportAllUrl, exportUrl, importConversations } from "./conversations";
export { fileText, fileUrl } from "./files";
export type { AddMcpServerRequest, ImportMcpServersRequest, UpdateMcpServerRequest } from "./mcp";
export { newServerTransport } from "./mcp";
export type { ModelRequest } from "./models";
export type { PresetFields, PresetPatch } from "./presets";
export type { ProjectFields, ProjectPatch } from "./projects";
export { projectFileUrl } from "./projects";
export { ApiError, asApiError, errorFromBody, errorFromResponse, isAbort, unreachable } from "./request";
export type { ApprovalRequest, ChatRequest, InterruptRequest } from "./runs";
export type { SettingsPatch } from "./settings";
