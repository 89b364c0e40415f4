//! docs/src/reference/http.md is the HTTP API as `openapi.json` describes it (and
//! `http::the_openapi_document_describes_exactly_the_routes` holds that to the routes): every
//! route with its parameters, body and responses, every view with its fields, and every error
//! kind with its status and meaning (the kind's doc comment, through schemars). A route changed
//! without its page fails here, naming the route. `BECKON_UPDATE_DOCS=1` rewrites the page.

use std::path::Path;

use beckon_api::ErrorKind;
use beckon_gateway::ApiError;
use beckon_testkit::reference_page::{cell, check, heading_id, type_text, value_text};
use serde_json::Value;

const PAGE: &str = "docs/src/reference/http.md";
const REWRITE: &str = "BECKON_UPDATE_DOCS=1 cargo nextest run -p beckon-gateway -E 'test(/^http_reference::/)'";

#[test]
fn the_http_page_is_every_route_view_and_error_of_the_openapi_document() {
    let doc: Value = serde_json::from_str(beckon_gateway::OPENAPI).unwrap();
    let page = page(&doc);
    assert!(page.contains("## `POST /v1/questions`"), "{page}");
    check(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")), PAGE, &page, REWRITE);
}

/// A view's name as a link to its section.
fn view_link(target: &str) -> String {
    let name = target.rsplit('/').next().unwrap_or(target);
    if target.starts_with("#/components/responses/") {
        return "[an error](#errors)".to_owned();
    }
    format!("[`{name}`](#{})", heading_id(&format!("`{name}`")))
}

fn page(doc: &Value) -> String {
    let info = &doc["info"];
    let server = doc["servers"][0]["url"].as_str().unwrap_or_default();
    let mut out = format!(
        "# The HTTP API\n\n\
         This page is the gateway's own description of its API (`GET /v1/openapi.json`, OpenAPI \
         {}), written by `{REWRITE}`; a test fails when it differs from the document, and another \
         when the document differs from the routes. How agents use it is in \
         [HTTP and webhooks](../agents/http.md).\n\n{}\n\nThe local gateway listens on `{server}` \
         unless told otherwise ([settings](settings.md)); a team server on its own address.\n",
        doc["openapi"].as_str().unwrap_or_default(),
        cell(info["description"].as_str().unwrap_or_default())
    );
    let routes = routes(doc);
    out.push_str("\n## Routes\n\n| Route | What it does |\n|---|---|\n");
    for (method, path, operation) in &routes {
        let title = format!("`{} {path}`", method.to_uppercase());
        out.push_str(&format!("| [{title}](#{}) | {} |\n", heading_id(&title), cell(summary(operation))));
    }
    for (method, path, operation) in &routes {
        out.push_str(&route(method, path, operation));
    }
    out.push_str("\n## Views\n\nWhat the routes answer with, and the bodies they take, by name.\n");
    for (name, schema) in doc["components"]["schemas"].as_object().into_iter().flatten() {
        out.push_str(&format!("\n### `{name}`\n\n"));
        if let Some(description) = schema["description"].as_str() {
            out.push_str(&format!("{}\n\n", cell(description)));
        }
        out.push_str(&fields(schema));
    }
    out.push_str(&errors(doc));
    out
}

fn routes(doc: &Value) -> Vec<(&String, &String, &Value)> {
    let mut routes = Vec::new();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        for (method, operation) in item.as_object().into_iter().flatten() {
            routes.push((method, path, operation));
        }
    }
    routes
}

fn summary(operation: &Value) -> &str {
    operation["summary"].as_str().unwrap_or_default()
}

fn route(method: &str, path: &str, operation: &Value) -> String {
    let mut out = format!("\n## `{} {path}`\n\n{}\n", method.to_uppercase(), cell(summary(operation)));
    if let Some(description) = operation["description"].as_str() {
        out.push_str(&format!("\n{}\n", cell(description)));
    }
    if operation["security"].as_array().is_some_and(Vec::is_empty) {
        out.push_str("\nNeeds no token.\n");
    }
    if let Some(parameters) = operation["parameters"].as_array() {
        out.push_str("\n**Parameters**\n\n| Name | In | Type | Required | Meaning |\n|---|---|---|---|---|\n");
        for parameter in parameters {
            out.push_str(&format!(
                "| `{}` | {} | {} | {} | {} |\n",
                parameter["name"].as_str().unwrap_or_default(),
                parameter["in"].as_str().unwrap_or_default(),
                cell(&type_text(&parameter["schema"], &view_link)),
                yes_no(parameter["required"].as_bool().unwrap_or(false)),
                cell(&described(&parameter["description"], &parameter["schema"]))
            ));
        }
    }
    if let Some(body) = operation.get("requestBody") {
        let required = if body["required"].as_bool().unwrap_or(false) { "required" } else { "optional" };
        for (media, content) in body["content"].as_object().into_iter().flatten() {
            out.push_str(&format!("\n**Body** ({}, {required}): {}", media_name(media), shape(&content["schema"])));
        }
    }
    out.push_str("\n**Responses**\n\n| Status | Meaning | Body |\n|---|---|---|\n");
    let mut error_statuses = Vec::new();
    let mut bodies = String::new();
    for (status, response) in operation["responses"].as_object().into_iter().flatten() {
        if response["$ref"].as_str().is_some_and(|target| target.ends_with("/Error")) {
            error_statuses.push(status.as_str());
            continue;
        }
        let mut body = Vec::new();
        for (media, content) in response["content"].as_object().into_iter().flatten() {
            let schema = &content["schema"];
            if schema["$ref"].is_string() {
                body.push(format!(
                    "{} ({})",
                    view_link(schema["$ref"].as_str().unwrap_or_default()),
                    media_name(media)
                ));
            } else if schema["properties"].is_object() {
                body.push(format!("an object, below ({})", media_name(media)));
                bodies.push_str(&format!("\n**{status}** body: {}", shape(schema)));
            } else {
                body.push(format!("{} ({})", type_text(schema, &view_link), media_name(media)));
            }
        }
        out.push_str(&format!(
            "| {status} | {} | {} |\n",
            cell(response["description"].as_str().unwrap_or_default()),
            if body.is_empty() { "none".to_owned() } else { cell(&body.join(", ")) }
        ));
    }
    if !error_statuses.is_empty() {
        out.push_str(&format!("| {} | Refused or failed | [an error](#errors) |\n", error_statuses.join(", ")));
    }
    out.push_str(&bodies);
    out
}

/// A body's shape: a view's name, an object's fields, or its type in words; ends with a blank
/// line.
fn shape(schema: &Value) -> String {
    if let Some(target) = schema["$ref"].as_str() {
        return format!("{}.\n", view_link(target));
    }
    if let Some(parts) = schema["allOf"].as_array() {
        let mut out = String::new();
        let mut extra = serde_json::Map::new();
        let mut views = Vec::new();
        for part in parts {
            match part["$ref"].as_str() {
                Some(target) => views.push(view_link(target)),
                None => extra.extend(part["properties"].as_object().cloned().unwrap_or_default()),
            }
        }
        out.push_str(&format!("{}, and also:\n\n", views.join(", ")));
        out.push_str(&fields(&serde_json::json!({ "properties": extra })));
        return out;
    }
    if schema["properties"].is_object() {
        return format!("an object.\n\n{}", fields(schema));
    }
    format!("{}.\n", cell(&described(&schema["description"], schema)))
}

/// An object's fields as a table, nested objects' fields as `outer.inner`, an array's items'
/// as `outer[].inner`.
fn fields(schema: &Value) -> String {
    let mut out = "| Field | Type | Required | Meaning |\n|---|---|---|---|\n".to_owned();
    rows(schema, "", &mut out);
    out
}

fn rows(schema: &Value, prefix: &str, out: &mut String) {
    let required: Vec<&str> = schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    for (name, field) in schema["properties"].as_object().into_iter().flatten() {
        let mut meaning = described(&field["description"], field);
        if field["deprecated"].as_bool().unwrap_or(false) {
            meaning = format!("Deprecated. {meaning}");
        }
        let nested = if field["properties"].is_object() { "object" } else { "" };
        let kind = if nested.is_empty() { type_text(field, &view_link) } else { nested.to_owned() };
        out.push_str(&format!(
            "| `{prefix}{name}` | {} | {} | {} |\n",
            cell(&kind),
            yes_no(required.contains(&name.as_str())),
            cell(&meaning)
        ));
        if field["properties"].is_object() {
            rows(field, &format!("{prefix}{name}."), out);
        } else if field["items"]["properties"].is_object() {
            rows(&field["items"], &format!("{prefix}{name}[]."), out);
        }
    }
}

/// A description with the schema's default, when it has one.
fn described(description: &Value, schema: &Value) -> String {
    let mut text = description.as_str().unwrap_or_default().to_owned();
    if let Some(default) = schema.get("default") {
        if !text.is_empty() && !text.ends_with('.') {
            text.push('.');
        }
        text.push_str(&format!(" Default `{}`.", value_text(default)));
    }
    text.trim().to_owned()
}

fn media_name(media: &str) -> String {
    match media {
        "application/json" => "JSON".to_owned(),
        other => format!("`{other}`"),
    }
}

fn yes_no(required: bool) -> &'static str {
    if required { "yes" } else { "no" }
}

/// The error object and every kind: the status it is sent with (the gateway's own mapping) and
/// what it means (the kind's doc comment).
fn errors(doc: &Value) -> String {
    let error = &doc["components"]["responses"]["Error"]["content"]["application/json"]["schema"];
    let mut out =
        "\n## Errors\n\nEvery refusal and failure is sent as JSON with the status its kind has:\n\n".to_owned();
    // The kinds are listed once, below, with their meanings.
    let mut shape = error.clone();
    if let Some(kind) = shape.pointer_mut("/properties/error/properties/kind") {
        *kind = serde_json::json!({
            "type": "string",
            "description": format!("{}: one of the [kinds below](#error-kinds)", kind["description"].as_str().unwrap_or_default()),
        });
    }
    out.push_str(&fields(&shape));
    let kinds = serde_json::to_value(schemars::schema_for!(ErrorKind)).unwrap();
    let meanings: Vec<(String, String)> = kinds["oneOf"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|kind| Some((kind["const"].as_str()?.to_owned(), kind["description"].as_str()?.to_owned())))
        .collect();
    out.push_str("\n### Error kinds\n\n| Kind | Status | Meaning |\n|---|---|---|\n");
    let listed = error["properties"]["error"]["properties"]["kind"]["enum"].as_array().cloned().unwrap_or_default();
    for name in listed.iter().filter_map(Value::as_str) {
        let kind = ErrorKind::ALL.iter().find(|kind| kind.as_str() == name);
        let status = kind.map(|kind| ApiError::new(*kind, "").status().as_u16().to_string()).unwrap_or_default();
        let meaning = meanings.iter().find(|(kind, _)| kind == name).map(|(_, text)| text.as_str()).unwrap_or_default();
        out.push_str(&format!("| `{name}` | {status} | {} |\n", cell(meaning)));
    }
    out
}
