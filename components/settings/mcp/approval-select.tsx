"use client";

import { useTranslations } from "use-intl";
import { cx } from "@/lib/client/cx";
import { type ToolApprovalPolicy, toolApprovalPolicies } from "@/lib/mcp/types";

const SELECT =
  "rounded-md border border-border bg-background px-1.5 py-1 text-xs outline-none focus-visible:outline-2 focus-visible:outline-ring disabled:opacity-60";

/**
 * What a call of a server's tools (or one tool) needs (docs/security.md, "Tools that act need the user's
 * consent"): ask, allow or deny, or the default: for a server, by each tool's annotations; for a tool, its
 * server's. `inherited` names what the default comes to here.
 */
export function ApprovalSelect({
  value,
  inherited,
  onChange,
  disabled,
  label,
  testId,
}: {
  value: ToolApprovalPolicy | null;
  inherited: string;
  onChange: (value: ToolApprovalPolicy | null) => void;
  disabled: boolean;
  label: string;
  testId: string;
}) {
  const t = useTranslations("mcp.approval");
  return (
    <select
      aria-label={label}
      data-testid={testId}
      className={cx(SELECT)}
      value={value ?? ""}
      disabled={disabled}
      onChange={(event) => {
        const chosen = toolApprovalPolicies.find((policy) => policy === event.target.value);
        onChange(chosen ?? null);
      }}
    >
      <option value="">{t("inherit", { inherited })}</option>
      {toolApprovalPolicies.map((policy) => (
        <option key={policy} value={policy}>
          {t(`policy.${policy}`)}
        </option>
      ))}
    </select>
  );
}
