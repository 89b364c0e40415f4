"""An MCP server (stdio) with one tool that asks its user for a form before it books. The form
goes out the way the negotiated protocol wants it (a request mid-call, or an input-required
result the client answers on retry)."""

from typing import Annotated

from pydantic import BaseModel, Field

from mcp.server.mcpserver import AcceptedElicitation, Elicit, ElicitationResult, MCPServer, Resolve

server = MCPServer("booking")


class Table(BaseModel):
    name: str = Field(description="Whose name the table is under")
    guests: int = Field(description="How many people come")


def who_comes() -> Elicit[Table]:
    return Elicit("Who is the table for?", Table)


@server.tool()
async def book_table(table: Annotated[ElicitationResult[Table], Resolve(who_comes)]) -> str:
    """Books a table after asking who comes."""
    if isinstance(table, AcceptedElicitation):
        return f"Booked a table for {table.data.guests} under {table.data.name}"
    return f"Not booked: {table.action}"


if __name__ == "__main__":
    server.run()
