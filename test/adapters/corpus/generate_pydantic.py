"""Writes pydantic.json: tool input schemas exactly as Pydantic 2 emits them for MCP servers.

Run with any Python that has pydantic 2:  python3 test/adapters/corpus/generate_pydantic.py
Two kinds of tools:
- the models of the Python reference servers (mcp-server-fetch, mcp-server-git), copied from their
  source, whose `inputSchema` is `Model.model_json_schema()`;
- FastMCP-style tools: the official Python SDK's FastMCP turns a function's signature into a model
  named `<tool>Arguments` and publishes its `model_json_schema()`; this script builds the same model
  from a signature with `create_model`, so nested models land in `$defs` as they do on the wire.
"""
from __future__ import annotations

import datetime as dt
import inspect
import json
import pathlib
import uuid
from enum import Enum
from ipaddress import IPv4Address
from typing import Annotated, Any, Literal, Optional, Union

import pydantic
from pydantic import AnyUrl, BaseModel, ConfigDict, Field, StringConstraints, create_model

# ---- mcp-server-fetch (src/fetch/src/mcp_server_fetch/server.py) ----------------------------------


class Fetch(BaseModel):
    """Parameters for fetching a URL."""

    url: Annotated[AnyUrl, Field(description="URL to fetch")]
    max_length: Annotated[int, Field(default=5000, description="Maximum number of characters to return.", gt=0, lt=1000000)]
    start_index: Annotated[
        int,
        Field(
            default=0,
            description="On return output starting at this character index, useful if a previous fetch was truncated and more context is required.",
            ge=0,
        ),
    ]
    raw: Annotated[bool, Field(default=False, description="Get the actual HTML content of the requested page, without simplification.")]


# ---- mcp-server-git (src/git/src/mcp_server_git/server.py) ----------------------------------------


class GitAdd(BaseModel):
    repo_path: str
    files: list[str]


class GitDiff(BaseModel):
    repo_path: str
    target: str
    context_lines: int = 3


class GitLog(BaseModel):
    repo_path: str
    max_count: int = 10
    start_timestamp: Optional[str] = Field(None, description="Start timestamp for filtering commits. Accepts: ISO 8601 format (e.g., '2024-01-15T14:30:25'), relative dates (e.g., '2 weeks ago', 'yesterday'), or absolute dates (e.g., '2024-01-15', 'Jan 15 2024')")
    end_timestamp: Optional[str] = Field(None, description="End timestamp for filtering commits. Accepts: ISO 8601 format (e.g., '2024-01-15T14:30:25'), relative dates (e.g., '2 weeks ago', 'yesterday'), or absolute dates (e.g., '2024-01-15', 'Jan 15 2024')")


class GitCreateBranch(BaseModel):
    repo_path: str
    branch_name: str
    base_branch: str | None = None


class GitBranch(BaseModel):
    repo_path: str = Field(..., description="The path to the Git repository.")
    branch_type: str = Field(..., description="Whether to list local branches ('local'), remote branches ('remote') or all branches('all').")
    contains: Optional[str] = Field(None, description="The commit sha that branch should contain. Do not pass anything to this param if no commit sha is specified")
    not_contains: Optional[str] = Field(None, description="The commit sha that branch should NOT contain. Do not pass anything to this param if no commit sha is specified")


# ---- models used by the FastMCP-style tools ----------------------------------------------------------


class Priority(str, Enum):
    low = "low"
    normal = "normal"
    urgent = "urgent"


class Attendee(BaseModel):
    email: Annotated[str, Field(json_schema_extra={"format": "email"}, description="Attendee's email address")]
    name: str | None = None
    optional: bool = False


class Reminder(BaseModel):
    minutes_before: Annotated[int, Field(ge=0, le=40320)] = 15
    method: Literal["email", "popup"] = "popup"


class OutlineNode(BaseModel):
    """A heading and the headings under it."""

    title: str
    children: list[OutlineNode] = []


class Comment(BaseModel):
    text: str
    reply: Comment | None = None


class Number(BaseModel):
    kind: Literal["number"] = "number"
    value: float


class BinaryOp(BaseModel):
    kind: Literal["binary"] = "binary"
    op: Literal["+", "-", "*", "/"]
    left: Annotated[Union[Number, BinaryOp], Field(discriminator="kind")]
    right: Annotated[Union[Number, BinaryOp], Field(discriminator="kind")]


class Circle(BaseModel):
    kind: Literal["circle"]
    radius: Annotated[float, Field(gt=0)]


class Rectangle(BaseModel):
    kind: Literal["rectangle"]
    width: Annotated[float, Field(gt=0)]
    height: Annotated[float, Field(gt=0)]


class AddOp(BaseModel):
    op: Literal["add"]
    path: str
    value: Any


class RemoveOp(BaseModel):
    op: Literal["remove"]
    path: str


class MoveOp(BaseModel):
    op: Literal["move"]
    from_: Annotated[str, Field(alias="from")]
    path: str


class Address(BaseModel):
    model_config = ConfigDict(extra="forbid")
    street: str
    city: str
    postal_code: Annotated[str, StringConstraints(pattern=r"^[0-9A-Z -]{3,10}$")]
    country: Annotated[str, StringConstraints(min_length=2, max_length=2)] = "US"


class Customer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    billing: Address
    shipping: Address | None = None


class Filter(BaseModel):
    field: str
    operator: Literal["eq", "ne", "lt", "gt", "contains"] = "eq"
    value: str | int | float | bool | None


# ---- FastMCP-style tools: signature -> `<name>Arguments` model ----------------------------------------


def create_event(
    title: Annotated[str, Field(description="Event title", min_length=1, max_length=200)],
    start: Annotated[dt.datetime, Field(description="Start time")],
    end: dt.datetime | None = None,
    attendees: list[Attendee] = [],
    reminder: Reminder | None = None,
    visibility: Literal["public", "private"] = "private",
    priority: Priority = Priority.normal,
) -> str: ...


def write_outline(document_id: uuid.UUID, root: OutlineNode) -> str: ...


def post_thread(thread: Comment) -> str: ...


def evaluate(expression: Annotated[Union[Number, BinaryOp], Field(discriminator="kind")]) -> float: ...


def draw_shape(shape: Annotated[Union[Circle, Rectangle], Field(discriminator="kind")], color: str = "black") -> str: ...


def patch_document(path: str, ops: Annotated[list[Annotated[Union[AddOp, RemoveOp, MoveOp], Field(discriminator="op")]], Field(min_length=1)]) -> str: ...


def set_labels(issue: int, labels: dict[str, str], metadata: dict[str, Any] | None = None) -> str: ...


def query_rows(
    table: str,
    filters: list[Filter] = [],
    columns: Annotated[set[str], Field(description="Columns to return; all when empty")] = set(),
    limit: Annotated[int, Field(ge=1, le=1000)] = 100,
    order: Literal["asc", "desc"] | None = None,
) -> list[dict[str, Any]]: ...


def geocode(point: tuple[float, float], radius_km: Annotated[float, Field(gt=0, le=500)] = 5.0) -> str: ...


def schedule_backup(
    host: IPv4Address,
    day: dt.date,
    at: dt.time,
    retention: dt.timedelta,
    webhook: AnyUrl | None = None,
    note: Any = None,
) -> str: ...


def register_customer(customer: Customer, tags: list[Priority] = [], level: Literal[1, 2, 3] = 1, kind: Literal["customer"] = "customer") -> str: ...


def sample(ratio: float, seed: int | None, dry_run: bool = False) -> str: ...


FASTMCP_TOOLS = [create_event, write_outline, post_thread, evaluate, draw_shape, patch_document, set_labels, query_rows, geocode, schedule_backup, register_customer, sample]


def fastmcp_schema(fn) -> dict:
    """The official Python SDK's FastMCP: one field per parameter, in a model named `<tool>Arguments`."""
    hints = inspect.get_annotations(fn, eval_str=True)
    fields = {}
    for name, param in inspect.signature(fn).parameters.items():
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[name] = (hints[name], default)
    model = create_model(f"{fn.__name__}Arguments", **fields)
    return model.model_json_schema(by_alias=True)


def main() -> None:
    tools = []
    for model, name, server in [
        (Fetch, "fetch", "mcp-server-fetch"),
        (GitAdd, "git_add", "mcp-server-git"),
        (GitDiff, "git_diff", "mcp-server-git"),
        (GitLog, "git_log", "mcp-server-git"),
        (GitCreateBranch, "git_create_branch", "mcp-server-git"),
        (GitBranch, "git_branch", "mcp-server-git"),
    ]:
        tools.append({"name": name, "description": f"{server}: {name}", "inputSchema": model.model_json_schema()})
    for fn in FASTMCP_TOOLS:
        tools.append({"name": fn.__name__, "description": f"FastMCP-style tool {fn.__name__}", "inputSchema": fastmcp_schema(fn)})
    out = {
        "source": f"Pydantic {pydantic.VERSION} model_json_schema(): mcp-server-fetch and mcp-server-git models (modelcontextprotocol/servers, src/fetch and src/git), and FastMCP-style <tool>Arguments models built from function signatures; generated by generate_pydantic.py",
        "tools": tools,
    }
    path = pathlib.Path(__file__).with_name("pydantic.json")
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {len(tools)} tools to {path}")


if __name__ == "__main__":
    main()
