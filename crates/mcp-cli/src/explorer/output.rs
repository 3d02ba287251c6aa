//! What a call or a read brought back, as the text of a pane; media saved
//! to files.

use super::*;

/// The extension a file of `mime` gets.
fn extension(mime: &str) -> &'static str {
    match mime {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/mpeg" => "mp3",
        "audio/ogg" => "ogg",
        _ => "bin",
    }
}

/// Writes each of `media` to `dir` as `STEM-N.EXT`, never over an existing
/// file (the next free number is taken); returns the names written.
///
/// Errors: data that is not base64, or a file that cannot be written.
pub(super) fn save_media(
    dir: &std::path::Path,
    stem: &str,
    media: &[Media],
) -> Result<Vec<String>, String> {
    use base64::Engine as _;
    // A tool name is server text: only its plain characters name a file.
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut names = Vec::new();
    let mut n = 1;
    for m in media {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(m.data.trim())
            .map_err(|e| format!("{} data is not base64: {e}", m.mime))?;
        loop {
            let name = format!("{stem}-{n}.{}", extension(&m.mime));
            n += 1;
            let file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(dir.join(&name));
            match file {
                Ok(mut f) => {
                    std::io::Write::write_all(&mut f, &bytes)
                        .map_err(|e| format!("{name}: {e}"))?;
                    names.push(name);
                    break;
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(format!("{name}: {e}")),
            }
        }
    }
    Ok(names)
}

/// A failed request as an output. A server request that cannot reach this
/// client in the revision negotiated gets the command line's way out: the
/// library's error names its own API.
pub(super) fn failed(title: &str, e: &ClientError) -> Output {
    let mut lines: Vec<String> = crate::exit::tidy(&e.to_string())
        .lines()
        .map(str::to_owned)
        .collect();
    if matches!(e, ClientError::ServerRequestNotInRevision { .. }) {
        lines.push(
            "hint: start mcp ui with --protocol-version handshake (or \"protocolVersion\": \"handshake\" in the server's entry)"
                .into(),
        );
    }
    Output {
        title: title.to_owned(),
        error: true,
        lines,
        scroll: 0,
        ..Default::default()
    }
}

/// About how many bytes `base64` text decodes to.
fn decoded_len(base64: &str) -> usize {
    base64.trim_end_matches('=').len() * 3 / 4
}

/// A tool's result, block by block by kind, then the structured content.
pub(super) fn call_output(
    tool: &str,
    outcome: Result<CallToolResult, ClientError>,
    has_output_schema: bool,
) -> Output {
    let result = match outcome {
        Ok(r) => r,
        Err(e) if e.is_cancelled() => {
            return Output {
                title: format!("{tool} → cancelled"),
                error: false,
                lines: vec!["the call was cancelled (notifications/cancelled sent)".into()],
                scroll: 0,
                ..Default::default()
            };
        }
        Err(e) => return failed(&format!("{tool} → error"), &e),
    };
    let mut lines = Vec::new();
    let mut links = Vec::new();
    let mut media = Vec::new();
    for block in &result.content {
        match block {
            ContentBlock::Text(t) => lines.extend(t.text.lines().map(str::to_owned)),
            ContentBlock::Image(i) => {
                lines.push(format!(
                    "[image {}, {} bytes; w saves it]",
                    i.mime_type,
                    decoded_len(&i.data)
                ));
                media.push(Media {
                    mime: i.mime_type.clone(),
                    data: i.data.clone(),
                });
            }
            ContentBlock::Audio(a) => {
                lines.push(format!(
                    "[audio {}, {} bytes; w saves it]",
                    a.mime_type,
                    decoded_len(&a.data)
                ));
                media.push(Media {
                    mime: a.mime_type.clone(),
                    data: a.data.clone(),
                });
            }
            ContentBlock::ResourceLink(l) => {
                lines.push(format!(
                    "[resource link {} ({}){}{}]",
                    l.uri,
                    l.name,
                    l.mime_type
                        .as_deref()
                        .map(|m| format!(", {m}"))
                        .unwrap_or_default(),
                    if links.is_empty() { "; o opens it" } else { "" }
                ));
                links.push(l.uri.clone());
            }
            ContentBlock::Resource(r) => {
                lines.push(format!("[embedded resource {}]", contents_uri(&r.resource)));
                lines.extend(contents_lines(&r.resource));
            }
            other => lines.push(crate::render::content_block(other)),
        }
    }
    if let Some(s) = &result.structured_content {
        lines.push(if has_output_schema && result.is_error != Some(true) {
            "structuredContent (matches the outputSchema):".into()
        } else {
            "structuredContent:".into()
        });
        lines.extend(
            serde_json::to_string_pretty(s)
                .unwrap_or_default()
                .lines()
                .map(str::to_owned),
        );
    }
    Output {
        title: format!("{tool} → result"),
        error: result.is_error == Some(true),
        lines,
        scroll: 0,
        links,
        media,
    }
}

fn contents_uri(c: &ResourceContents) -> String {
    match c {
        ResourceContents::Text(t) => match &t.mime_type {
            Some(m) => format!("{} ({m})", t.uri),
            None => t.uri.clone(),
        },
        ResourceContents::Blob(b) => match &b.mime_type {
            Some(m) => format!("{} ({m})", b.uri),
            None => b.uri.clone(),
        },
    }
}

fn contents_lines(c: &ResourceContents) -> Vec<String> {
    match c {
        ResourceContents::Text(t) => t.text.lines().map(str::to_owned).collect(),
        ResourceContents::Blob(b) => vec![format!("[binary, {} bytes]", decoded_len(&b.blob))],
    }
}

pub(super) fn read_output(what: &str, outcome: Result<ReadResourceResult, ClientError>) -> Output {
    match outcome {
        Ok(r) => {
            let mut lines = Vec::new();
            for c in &r.contents {
                lines.push(format!("── {}", contents_uri(c)));
                lines.extend(contents_lines(c));
            }
            Output {
                title: format!("read {what}"),
                error: false,
                lines,
                scroll: 0,
                ..Default::default()
            }
        }
        Err(e) => failed(&format!("read {what} → error"), &e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_are_saved_without_overwriting() {
        let dir = std::env::temp_dir().join(format!("mcp-ui-save-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("get_img-1.png"), b"keep").unwrap();
        let media = [
            Media {
                mime: "image/png".into(),
                data: "aGk=".into(),
            },
            Media {
                mime: "audio/wav".into(),
                data: "aGk=".into(),
            },
        ];
        let names = save_media(&dir, "get/img", &media).unwrap();
        assert_eq!(names, ["get_img-2.png", "get_img-3.wav"]);
        assert_eq!(std::fs::read(dir.join("get_img-1.png")).unwrap(), b"keep");
        assert_eq!(std::fs::read(dir.join("get_img-2.png")).unwrap(), b"hi");
        let bad = [Media {
            mime: "image/png".into(),
            data: "not base64!".into(),
        }];
        assert!(
            save_media(&dir, "x", &bad)
                .unwrap_err()
                .contains("not base64")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_result_shows_each_kind_of_block_and_is_error() {
        let result: CallToolResult = serde_json::from_value(serde_json::json!({
            "content": [
                {"type": "text", "text": "one\ntwo"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "audio", "data": "AAAAAA==", "mimeType": "audio/wav"},
                {"type": "resource_link", "uri": "file:///x", "name": "x"},
                {"type": "resource", "resource": {"uri": "demo://r", "text": "inside", "mimeType": "text/plain"}},
            ],
            "structuredContent": {"sum": 5},
            "isError": true
        }))
        .unwrap();
        let o = call_output("t", Ok(result), true);
        assert!(o.error);
        assert_eq!(
            o.lines,
            [
                "one",
                "two",
                "[image image/png, 3 bytes; w saves it]",
                "[audio audio/wav, 4 bytes; w saves it]",
                "[resource link file:///x (x); o opens it]",
                "[embedded resource demo://r (text/plain)]",
                "inside",
                "structuredContent:",
                "{",
                "  \"sum\": 5",
                "}",
            ]
        );
        assert_eq!(o.links, ["file:///x"]);
        assert_eq!(o.media.len(), 2);
    }
}
