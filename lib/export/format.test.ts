import { getTableColumns } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import {
  citationReports,
  conversations,
  files,
  interrupts,
  messages,
  projects,
  runEvents,
  runSourceParts,
  runSources,
  runs,
} from "@/lib/db/schema";
import {
  type ColumnRule,
  citationReportColumns,
  conversationColumns,
  exportDocumentSchema,
  fileColumns,
  interruptColumns,
  messageColumns,
  projectColumns,
  projectDocumentSchema,
  runColumns,
  runEventColumns,
  runSourceColumns,
  runSourcePartColumns,
} from "./format";

const tables: [string, SQLiteTable, Record<string, ColumnRule>][] = [
  ["conversations", conversations, conversationColumns],
  ["messages", messages, messageColumns],
  ["runs", runs, runColumns],
  ["run_events", runEvents, runEventColumns],
  ["files", files, fileColumns],
  ["interrupts", interrupts, interruptColumns],
  ["run_sources", runSources, runSourceColumns],
  ["run_source_parts", runSourceParts, runSourcePartColumns],
  ["citation_reports", citationReports, citationReportColumns],
  ["projects", projects, projectColumns],
];

const exported = (rules: Record<string, ColumnRule>) =>
  Object.keys(rules).filter((column) => rules[column] === "exported");

describe("the export format", () => {
  it.each(tables)("exports every column of %s or says why not", (_name, table, rules) => {
    expect(Object.keys(rules).sort()).toEqual(Object.keys(getTableColumns(table)).sort());
    for (const rule of Object.values(rules)) {
      if (rule !== "exported") expect(rule.omitted.length).toBeGreaterThan(10);
    }
  });

  it("reads back every exported column on import", () => {
    const shape = exportDocumentSchema({ maxMessages: 1, maxInstructionsChars: 1 }).shape;
    const keys = (schema: { shape: object }) => Object.keys(schema.shape).sort();
    expect(keys(shape.conversation)).toEqual(exported(conversationColumns).sort());
    expect(keys(shape.messages.element)).toEqual(exported(messageColumns).sort());
    expect(keys(shape.runs.element)).toEqual([...exported(runColumns), "events", "sources"].sort());
    const sources = shape.runs.element.shape.sources.unwrap().element;
    expect(keys(sources)).toEqual([...exported(runSourceColumns), "parts"].sort());
    expect(keys(sources.shape.parts.element)).toEqual(exported(runSourcePartColumns).sort());
    expect(keys(shape.citationReports.unwrap().element)).toEqual(exported(citationReportColumns).sort());
    expect(keys(shape.runs.element.shape.events.element)).toEqual(exported(runEventColumns).sort());
    expect(keys(shape.files.element)).toEqual([...exported(fileColumns), "bytes"].sort());
    expect(keys(shape.interrupts.element)).toEqual(exported(interruptColumns).sort());
    // The project's preset travels by its name, in place of its id.
    expect(keys(shape.project.unwrap().unwrap())).toEqual([...exported(projectColumns), "preset"].sort());
    expect(keys(shape.projectFiles.unwrap().element)).toEqual([...exported(fileColumns), "bytes"].sort());
    const project = projectDocumentSchema({ maxInstructionsChars: 1 }).shape;
    expect(keys(project.project)).toEqual([...exported(projectColumns), "preset"].sort());
    expect(keys(project.files.element)).toEqual([...exported(fileColumns), "bytes"].sort());
  });
});
