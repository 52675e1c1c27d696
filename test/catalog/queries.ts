/**
 * The query set for tool search: task phrasings as an agent or a user would write them, each with the
 * tool(s) that do the job (qualified `server__tool` names; any one of them counts as found). Written
 * as paraphrases of the tasks, not copies of the tools' descriptions. test/catalog/search.test.ts holds
 * recall@5 on it to >= 0.9; bench/catalog.ts reports recall@5 and MRR.
 */
import { readFileSync } from "node:fs";
import type { Tool } from "../../src/index.js";
import { saasTools } from "./saas-tools.js";

export interface CatalogQuery {
  query: string;
  expected: string[];
}

/** Every tool of the catalog, by server (real servers from real-tools.json, plus "acme"). */
export function catalogServers(): Record<string, Tool[]> {
  const real = JSON.parse(readFileSync(new URL("./real-tools.json", import.meta.url), "utf8")) as Record<string, { tools: Tool[] }>;
  const servers: Record<string, Tool[]> = {};
  for (const [name, entry] of Object.entries(real)) servers[name] = entry.tools;
  servers.acme = saasTools();
  return servers;
}

const q = (query: string, ...expected: string[]): CatalogQuery => ({ query, expected });

export const QUERIES: CatalogQuery[] = [
  // filesystem
  q("show me what is inside config.yaml", "filesystem__read_text_file", "filesystem__read_file"),
  q("open several source files at once", "filesystem__read_multiple_files"),
  q("save this text to disk as notes.md", "filesystem__write_file"),
  q("replace a few lines in an existing text file", "filesystem__edit_file"),
  q("make a new folder called build", "filesystem__create_directory"),
  q("what files are in the src folder", "filesystem__list_directory", "filesystem__list_directory_with_sizes"),
  q("folder contents with how big each file is", "filesystem__list_directory_with_sizes"),
  q("nested view of the whole project layout as JSON", "filesystem__directory_tree"),
  q("rename report.txt to report-final.txt", "filesystem__move_file"),
  q("find all files matching *.test.ts", "filesystem__search_files"),
  q("when was this file last modified and how large is it", "filesystem__get_file_info"),
  q("which paths am I permitted to touch", "filesystem__list_allowed_directories"),
  q("load a png screenshot as base64", "filesystem__read_media_file"),
  // memory
  q("remember that Alice is a person who works at Acme", "memory__create_entities", "memory__add_observations"),
  q("link two entities: Bob manages Carol", "memory__create_relations"),
  q("attach a new fact to an existing entity", "memory__add_observations"),
  q("forget the entity named Project X", "memory__delete_entities"),
  q("drop the link between two entities", "memory__delete_relations"),
  q("dump everything stored in memory", "memory__read_graph"),
  q("look up what memory knows about kubernetes", "memory__search_nodes"),
  q("retrieve specific memory nodes by name", "memory__open_nodes"),
  q("remove an outdated fact from an entity", "memory__delete_observations"),
  // sequential thinking
  q("reason through a hard problem step by step with revisions", "thinking__sequentialthinking"),
  // everything
  q("repeat my message back to me", "everything__echo"),
  q("add two numbers together", "everything__get-sum"),
  q("print the environment variables of the server process", "everything__get-env"),
  q("compress a file with gzip", "everything__gzip-file-as-resource"),
  q("turn simulated log messages on", "everything__toggle-simulated-logging"),
  q("a slow operation that reports progress", "everything__trigger-long-running-operation"),
  q("give me a small test image", "everything__get-tiny-image"),
  // github
  q("look for open source repos about vector databases", "github__search_repositories"),
  q("start a new repo on GitHub", "github__create_repository"),
  q("read README.md from a GitHub project", "github__get_file_contents"),
  q("commit several files to GitHub in one go", "github__push_files"),
  q("file a bug report on the repository", "github__create_issue"),
  q("open a PR from my feature branch", "github__create_pull_request"),
  q("copy someone's repository into my account", "github__fork_repository"),
  q("create a git branch off main", "github__create_branch"),
  q("recent commit history of a branch", "github__list_commits"),
  q("leave a comment on GitHub issue 42", "github__add_issue_comment"),
  q("grep for a function name across GitHub code", "github__search_code"),
  q("merge the approved pull request", "github__merge_pull_request"),
  q("which files did a PR change", "github__get_pull_request_files"),
  q("are the CI checks passing on this pull request", "github__get_pull_request_status"),
  q("approve a pull request with a review", "github__create_pull_request_review"),
  q("close an issue or change its labels", "github__update_issue"),
  q("find GitHub users named torvalds", "github__search_users"),
  // acme SaaS
  q("issue a refund for a customer's card charge", "acme__payment_refund"),
  q("email the invoice to the client", "acme__invoice_send"),
  q("cancel someone's subscription", "acme__subscription_cancel"),
  q("download an invoice as pdf", "acme__invoice_pdf"),
  q("combine two duplicate contacts", "acme__contact_merge"),
  q("mark the opportunity as won", "acme__deal_mark_won"),
  q("move a deal to negotiation stage", "acme__deal_move_stage"),
  q("hand this support ticket to the billing team", "acme__ticket_assign"),
  q("bump a ticket to tier 2 support", "acme__ticket_escalate"),
  q("reply to the customer on their ticket", "acme__create_ticket_comment"),
  q("publish the draft knowledge base article", "acme__kb_article_publish"),
  q("check off a todo as finished", "acme__task_complete"),
  q("split a task into smaller subtasks", "acme__task_add_subtask"),
  q("log 3 billable hours against a task", "acme__create_time_entry"),
  q("when is everyone free for a meeting", "acme__calendar_event_find_free_slot"),
  q("decline the meeting invitation", "acme__calendar_event_rsvp"),
  q("reserve a conference room for 2pm", "acme__meeting_room_book"),
  q("post a message in the #general channel", "acme__create_chat_message"),
  q("react with a thumbs up emoji", "acme__chat_message_react"),
  q("approve Jane's vacation", "acme__time_off_request_approve"),
  q("run payroll for this month", "acme__payroll_run_submit"),
  q("share a document from the drive with a colleague", "acme__drive_file_share"),
  q("upload a spreadsheet to cloud storage", "acme__drive_file_upload"),
  q("export the revenue report to CSV", "acme__report_export_csv"),
  q("disable a user so they cannot log in", "acme__user_deactivate"),
  q("send a password reset to a user", "acme__user_reset_password"),
  q("rotate a leaked API secret", "acme__api_key_rotate"),
  q("fire a test event at our webhook endpoint", "acme__webhook_test"),
  q("who changed what in the admin audit trail", "acme__list_audit_logs"),
  q("how many people opened the newsletter", "acme__email_campaign_stats"),
  q("fix the inventory count for a product", "acme__product_adjust_stock"),
  q("mark the order shipped with tracking number", "acme__order_fulfil"),
  q("void an unpaid invoice", "acme__invoice_void"),
  q("create a 20% discount code", "acme__create_coupon"),
  q("archive a completed project", "acme__project_archive"),
];
