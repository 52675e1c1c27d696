/**
 * A large synthetic SaaS-like MCP server's tool list ("acme": CRM, billing, support, projects,
 * calendar, chat, HR, storage, analytics, admin), written the way such servers describe their tools:
 * CRUD per resource plus the resource's own actions. With the real servers' lists in real-tools.json it
 * makes the catalog of test/catalog/queries.ts and bench/catalog.ts (over 250 tools).
 */
import type { Tool } from "../../src/index.js";

interface Resource {
  /** snake_case, singular. */
  name: string;
  /** What one is, for descriptions. */
  noun: string;
  plural: string;
  area: string;
  fields: Record<string, string>;
  /** Extra actions: tool suffix -> description. */
  actions?: Record<string, string>;
}

const RESOURCES: Resource[] = [
  {
    name: "contact",
    noun: "CRM contact",
    plural: "CRM contacts",
    area: "CRM",
    fields: { email: "Email address", phone: "Phone number", company_id: "Company the contact works for" },
    actions: { merge: "Merge two duplicate CRM contacts into one, keeping the history of both" },
  },
  {
    name: "company",
    noun: "company account",
    plural: "company accounts",
    area: "CRM",
    fields: { domain: "Web domain", industry: "Industry sector", employees: "Head count" },
  },
  {
    name: "deal",
    noun: "sales deal",
    plural: "sales deals in the pipeline",
    area: "CRM",
    fields: { amount: "Deal value", stage: "Pipeline stage", close_date: "Expected close date" },
    actions: { move_stage: "Move a sales deal to another stage of the pipeline", mark_won: "Mark a sales deal as won and record the closed revenue" },
  },
  {
    name: "invoice",
    noun: "invoice",
    plural: "invoices",
    area: "billing",
    fields: { customer_id: "Billed customer", due_date: "Payment due date", line_items: "Lines with product, quantity and unit price" },
    actions: {
      send: "Email an invoice to the customer's billing contact",
      void: "Void an open invoice so it can no longer be paid",
      pdf: "Render an invoice as a PDF file for download",
    },
  },
  {
    name: "subscription",
    noun: "subscription",
    plural: "subscriptions",
    area: "billing",
    fields: { plan_id: "Price plan", quantity: "Seats", trial_days: "Length of the free trial" },
    actions: { cancel: "Cancel a customer's subscription at period end or immediately", pause: "Pause collection on a subscription for a while" },
  },
  {
    name: "payment",
    noun: "card payment",
    plural: "payments received",
    area: "billing",
    fields: { amount: "Amount in cents", currency: "ISO currency", method: "Card, bank transfer or wallet" },
    actions: { refund: "Refund a payment in full or in part to the original card" },
  },
  {
    name: "customer",
    noun: "billing customer",
    plural: "billing customers",
    area: "billing",
    fields: { email: "Billing email", tax_id: "VAT or tax number", address: "Billing address" },
  },
  {
    name: "coupon",
    noun: "discount coupon",
    plural: "discount coupons",
    area: "billing",
    fields: { percent_off: "Percentage taken off", duration: "once, repeating or forever" },
  },
  {
    name: "ticket",
    noun: "support ticket",
    plural: "support tickets",
    area: "support",
    fields: { subject: "Short summary of the problem", priority: "low, normal, high or urgent", requester: "Who reported it" },
    actions: {
      assign: "Assign a support ticket to an agent or group",
      close: "Close a solved support ticket and notify the requester",
      escalate: "Escalate a support ticket to the next support tier",
    },
  },
  {
    name: "ticket_comment",
    noun: "reply on a support ticket",
    plural: "replies on a support ticket",
    area: "support",
    fields: { ticket_id: "Ticket", body: "Reply text", public: "Visible to the requester" },
  },
  {
    name: "macro",
    noun: "canned support response",
    plural: "canned support responses",
    area: "support",
    fields: { title: "Name of the macro", actions: "Changes applied to the ticket" },
  },
  {
    name: "kb_article",
    noun: "help center article",
    plural: "help center articles",
    area: "support",
    fields: { title: "Headline", body: "Article text", section: "Help center section" },
    actions: { publish: "Publish a draft help center article to the public knowledge base" },
  },
  {
    name: "project",
    noun: "project",
    plural: "projects",
    area: "projects",
    fields: { owner: "Project lead", deadline: "Target date", status: "on track, at risk or off track" },
    actions: { archive: "Archive a finished project so it leaves the active list" },
  },
  {
    name: "task",
    noun: "task",
    plural: "tasks in a project",
    area: "projects",
    fields: { project_id: "Project", assignee: "Person doing it", due: "Due date" },
    actions: { complete: "Mark a task as done", add_subtask: "Break a task down by adding a subtask under it" },
  },
  {
    name: "sprint",
    noun: "sprint",
    plural: "sprints",
    area: "projects",
    fields: { start: "First day", end: "Last day", goal: "What the sprint should achieve" },
    actions: { start: "Start a planned sprint with its committed tasks" },
  },
  {
    name: "time_entry",
    noun: "timesheet entry",
    plural: "timesheet entries",
    area: "projects",
    fields: { hours: "Hours worked", task_id: "Task the time was spent on", billable: "Can be billed to the client" },
  },
  {
    name: "calendar_event",
    noun: "calendar event",
    plural: "calendar events",
    area: "calendar",
    fields: { start: "Start time", end: "End time", attendees: "People invited" },
    actions: { rsvp: "Accept, decline or tentatively accept a calendar invitation", find_free_slot: "Find a free time slot when all attendees are available" },
  },
  {
    name: "meeting_room",
    noun: "meeting room",
    plural: "meeting rooms",
    area: "calendar",
    fields: { capacity: "Seats", floor: "Floor" },
    actions: { book: "Book a meeting room for a time range" },
  },
  {
    name: "channel",
    noun: "chat channel",
    plural: "chat channels",
    area: "chat",
    fields: { topic: "Channel topic", private: "Invite only" },
    actions: { invite: "Invite people to a chat channel" },
  },
  {
    name: "chat_message",
    noun: "chat message",
    plural: "chat messages in a channel",
    area: "chat",
    fields: { channel_id: "Channel", text: "Message text", thread_ts: "Thread to reply in" },
    actions: { react: "Add an emoji reaction to a chat message", pin: "Pin a chat message to the top of its channel" },
  },
  {
    name: "employee",
    noun: "employee record",
    plural: "employee records",
    area: "HR",
    fields: { department: "Department", manager: "Manager", start_date: "Hire date" },
    actions: { offboard: "Offboard an employee who leaves: revoke access and collect equipment" },
  },
  {
    name: "time_off_request",
    noun: "vacation or leave request",
    plural: "vacation and leave requests",
    area: "HR",
    fields: { from: "First day off", to: "Last day off", kind: "vacation, sick or parental" },
    actions: { approve: "Approve an employee's vacation or leave request" },
  },
  {
    name: "payroll_run",
    noun: "payroll run",
    plural: "payroll runs",
    area: "HR",
    fields: { period: "Pay period", currency: "Currency" },
    actions: { submit: "Submit a payroll run so salaries are paid" },
  },
  {
    name: "drive_file",
    noun: "cloud drive file",
    plural: "files in the cloud drive",
    area: "storage",
    fields: { folder_id: "Folder", mime_type: "File type", size: "Bytes" },
    actions: { share: "Share a cloud drive file with people or a link", upload: "Upload a new file to the cloud drive" },
  },
  { name: "drive_folder", noun: "cloud drive folder", plural: "folders in the cloud drive", area: "storage", fields: { parent_id: "Parent folder" } },
  {
    name: "dashboard",
    noun: "analytics dashboard",
    plural: "analytics dashboards",
    area: "analytics",
    fields: { widgets: "Charts on it", refresh: "Refresh interval" },
  },
  {
    name: "report",
    noun: "analytics report",
    plural: "saved analytics reports",
    area: "analytics",
    fields: { metric: "Metric to aggregate", group_by: "Dimension", range: "Date range" },
    actions: { run: "Run a saved analytics report and return its rows", export_csv: "Export an analytics report's rows as CSV" },
  },
  {
    name: "user",
    noun: "workspace user",
    plural: "workspace users",
    area: "admin",
    fields: { email: "Login email", role: "Role", mfa: "Two-factor enabled" },
    actions: { deactivate: "Deactivate a workspace user so they can no longer sign in", reset_password: "Send a workspace user a password reset link" },
  },
  { name: "role", noun: "access role", plural: "access roles", area: "admin", fields: { permissions: "Permissions granted" } },
  {
    name: "api_key",
    noun: "API key",
    plural: "API keys",
    area: "admin",
    fields: { scopes: "Scopes", expires: "Expiry" },
    actions: { rotate: "Rotate an API key: issue a new secret and expire the old one" },
  },
  {
    name: "webhook",
    noun: "webhook subscription",
    plural: "webhook subscriptions",
    area: "admin",
    fields: { url: "Endpoint that receives events", events: "Event types" },
    actions: { test: "Send a test event to a webhook endpoint" },
  },
  {
    name: "audit_log",
    noun: "audit log entry",
    plural: "audit log entries",
    area: "admin",
    fields: { actor: "Who did it", action: "What was done", since: "From this time" },
  },
  {
    name: "email_campaign",
    noun: "email marketing campaign",
    plural: "email marketing campaigns",
    area: "marketing",
    fields: { subject: "Subject line", audience: "Segment", send_at: "Scheduled time" },
    actions: { schedule: "Schedule an email campaign to go out at a set time", stats: "Opens, clicks and unsubscribes of a sent email campaign" },
  },
  { name: "form", noun: "signup form", plural: "signup forms", area: "marketing", fields: { fields: "Form fields", redirect: "Page after submit" } },
  {
    name: "product",
    noun: "catalog product",
    plural: "products in the store catalog",
    area: "commerce",
    fields: { sku: "Stock keeping unit", price: "Price", stock: "Units in stock" },
    actions: { adjust_stock: "Adjust the inventory count of a product after a stock take" },
  },
  {
    name: "order",
    noun: "store order",
    plural: "store orders",
    area: "commerce",
    fields: { customer_id: "Buyer", items: "Ordered products", shipping: "Shipping method" },
    actions: { fulfil: "Mark a store order as shipped with a tracking number" },
  },
];

const VERBS: Array<[string, (r: Resource) => string]> = [
  ["list", (r) => `List ${r.plural}, paginated, with filters on their fields.`],
  ["get", (r) => `Get one ${r.noun} by id with all its fields.`],
  ["create", (r) => `Create a new ${r.noun}.`],
  ["update", (r) => `Update fields of an existing ${r.noun}.`],
  ["delete", (r) => `Delete a ${r.noun} permanently.`],
];

function schemaOf(resource: Resource, verb: string): Tool["inputSchema"] {
  const idOnly = verb === "get" || verb === "delete" || !["list", "create", "update"].includes(verb);
  const properties: Record<string, object> = {};
  if (verb !== "list" && verb !== "create") properties.id = { type: "string", description: `Id of the ${resource.noun}` };
  if (verb === "list") {
    properties.cursor = { type: "string", description: "Page cursor" };
    properties.limit = { type: "integer", description: "Page size" };
  }
  if (!idOnly || verb === "list") for (const [field, description] of Object.entries(resource.fields)) properties[field] = { type: "string", description };
  return { type: "object", properties, ...(verb === "create" || idOnly ? { required: verb === "create" ? [] : ["id"] } : {}) };
}

/** The "acme" server's tools: CRUD and actions over every resource. */
export function saasTools(): Tool[] {
  const tools: Tool[] = [];
  for (const resource of RESOURCES) {
    for (const [verb, describe] of VERBS) {
      const name = `${verb}_${resource.name}${verb === "list" ? "s" : ""}`;
      tools.push({ name, description: `${describe(resource)} (${resource.area})`, inputSchema: schemaOf(resource, verb) });
    }
    for (const [action, description] of Object.entries(resource.actions ?? {})) {
      tools.push({ name: `${resource.name}_${action}`, description: `${description}. (${resource.area})`, inputSchema: schemaOf(resource, action) });
    }
  }
  return tools;
}
