"""The sandbox page's rendering: Discord message JSON to HTML, without a browser."""

from __future__ import annotations

from bot.sandbox.render import (
    RenderContext,
    render_components,
    render_embed,
    render_markdown,
    render_message,
    render_modal,
)

ANA, BOB, GENERAL, ROLE = 11, 22, 33, 44
CTX = RenderContext(
    viewer=ANA,
    users={ANA: "Ana", BOB: "Bob"},
    roles={ROLE: "Committee"},
    channels={GENERAL: "general"},
    members=[ANA, BOB],
)


def message(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": "1001",
        "channel_id": str(GENERAL),
        "author": {"id": "9", "username": "gamenight", "global_name": "Gamenight", "bot": True},
        "content": "",
        "timestamp": "2025-03-14T09:00:00+00:00",
        "edited_timestamp": None,
        "embeds": [],
        "components": [],
        "attachments": [],
        "flags": 0,
    }
    return base | fields


def test_markdown_escapes_html_and_keeps_discord_formatting() -> None:
    html = render_markdown("<script>alert(1)</script> **bold** *it* __u__ ~~s~~ `a<b>`", CTX)
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<strong>bold</strong>" in html and "<em>it</em>" in html
    assert "<u>u</u>" in html and "<s>s</s>" in html
    assert "<code>a&lt;b&gt;</code>" in html


def test_markdown_inside_code_is_left_alone() -> None:
    html = render_markdown("`**not bold** <@11>`\n```\n**x** <@22>\n```", CTX)
    assert "<strong>" not in html and "@Ana" not in html and "@Bob" not in html
    assert '<pre class="code-block">' in html


def test_mentions_name_users_roles_and_channels_and_mark_the_viewer() -> None:
    html = render_markdown(f"<@{ANA}> <@!{BOB}> <@&{ROLE}> <#{GENERAL}> <@999>", CTX)
    assert '<span class="mention mention-me">@Ana</span>' in html
    assert '<span class="mention">@Bob</span>' in html
    assert "@Committee" in html and "#general" in html
    assert "@unknown user 999" in html


def test_timestamps_become_time_elements() -> None:
    html = render_markdown("ends <t:1741942800:R>", CTX)
    assert '<time class="ts" datetime="2025-03-14T09:00:00+00:00" data-style="R">' in html


def test_links_are_safe_and_jump_links_stay_in_the_page() -> None:
    html = render_markdown(
        "see https://example.com/a?b=1&c=2 and [the table](https://discord.com/channels/1/33/77)"
        " or [bad](javascript:alert(1))",
        CTX,
    )
    assert 'href="https://example.com/a?b=1&amp;c=2"' in html
    assert 'data-channel="33" data-jump="77">the table</a>' in html
    assert 'href="javascript' not in html


def test_quotes_lists_headings_and_subtext() -> None:
    html = render_markdown("# Title\n> quoted\n- one\n- two\n-# small print\nplain", CTX)
    assert '<h3 class="md-h">Title</h3>' in html
    assert "<blockquote>quoted</blockquote>" in html
    assert "<ul><li>one</li><li>two</li></ul>" in html
    assert '<div class="subtext">small print</div>' in html


def test_embed_with_colour_fields_footer_and_attached_image() -> None:
    embed = {
        "title": "Papayoo",
        "description": "round **1**",
        "color": 0x2ECC71,
        "fields": [
            {"name": "Players", "value": f"<@{BOB}>", "inline": True},
            {"name": "Scores", "value": "0", "inline": False},
        ],
        "footer": {"text": "good luck"},
        "image": {"url": "attachment://table.png"},
    }
    html = render_embed(embed, CTX, [{"id": "5", "filename": "table.png"}])
    assert "border-left-color:#2ecc71" in html
    assert '<div class="embed-field inline">' in html and '<div class="embed-field">' in html
    assert "round <strong>1</strong>" in html and "@Bob" in html
    assert 'src="/attachments/5/table.png"' in html and "good luck" in html


def test_buttons_keep_their_style_and_disabled_state() -> None:
    row = {
        "type": 1,
        "components": [
            {"type": 2, "style": 3, "label": "Accept", "custom_id": "gn:a"},
            {"type": 2, "style": 4, "label": "Decline", "custom_id": "gn:d", "disabled": True},
            {"type": 2, "style": 5, "label": "Rules", "url": "https://example.com"},
        ],
    }
    html = render_components([row], CTX)
    assert 'class="btn btn-success" type="button" data-action="click" data-custom-id="gn:a"' in html
    assert (
        '<button class="btn btn-danger" type="button" disabled><span>Decline</span></button>'
        in html
    )
    assert 'data-custom-id="gn:d"' not in html  # a disabled button cannot be clicked
    assert 'class="btn btn-link" href="https://example.com"' in html


def test_string_select_carries_its_limits_and_defaults() -> None:
    select = {
        "type": 3,
        "custom_id": "gns:pass",
        "placeholder": "Choose 2 cards",
        "min_values": 2,
        "max_values": 2,
        "options": [
            {"label": "2♠", "value": "2S", "default": True},
            {"label": "3♠", "value": "3S", "description": "low"},
            {"label": "<b>", "value": "x"},
        ],
    }
    html = render_components([{"type": 1, "components": [select]}], CTX)
    assert 'data-custom-id="gns:pass" data-kind="string" data-min="2" data-max="2"' in html
    assert 'type="checkbox" name="gns:pass" value="2S" checked' in html
    assert "<small>low</small>" in html and "&lt;b&gt;" in html
    assert "select-confirm" in html


def test_single_select_sends_at_once_and_disabled_select_offers_nothing() -> None:
    single = {"type": 3, "custom_id": "one", "options": [{"label": "A", "value": "a"}]}
    assert 'type="radio"' in render_components([single], CTX)
    assert "select-confirm" not in render_components([single], CTX)
    off = render_components([single | {"disabled": True}], CTX)
    assert 'class="select disabled"' in off and "disabled>" in off


def test_user_select_offers_the_members() -> None:
    html = render_components([{"type": 5, "custom_id": "pick"}], CTX)
    assert f'value="{ANA}"' in html and f'value="{BOB}"' in html and ">Bob<" in html


def test_ephemeral_message_says_only_you_can_see_it() -> None:
    html = render_message(message(content="psst", flags=64), CTX)
    assert 'class="msg ephemeral"' in html and "Only you can see this" in html
    assert "Only you can see this" not in render_message(message(content="hi"), CTX)


def test_deferred_answer_shows_thinking() -> None:
    assert "Gamenight is thinking" in render_message(message(flags=128), CTX)


def test_command_answer_names_who_used_which_command() -> None:
    meta = {
        "id": "1",
        "type": 2,
        "name": "spaye",
        "user": {"id": "11", "username": "ana", "global_name": "Ana"},
    }
    html = render_message(message(content="ok", interaction_metadata=meta), CTX)
    assert '<span class="reply-user">Ana</span> used <span class="reply-cmd">/spaye</span>' in html


def test_pictures_are_shown_inline_and_other_files_as_links() -> None:
    html = render_message(
        message(
            attachments=[
                {"id": "7", "filename": "hand.png", "size": 10},
                {"id": "8", "filename": "scores.csv", "size": 2048},
            ]
        ),
        CTX,
    )
    assert '<img class="attachment-image" src="/attachments/7/hand.png" alt="hand.png">' in html
    assert (
        'href="/attachments/8/scores.csv" download="scores.csv"' in html and "2,048 bytes" in html
    )


def test_components_v2_container_text_and_separator() -> None:
    comps = [
        {
            "type": 17,
            "accent_color": 0xFF0000,
            "components": [
                {"type": 10, "content": "**Table**"},
                {"type": 14},
                {
                    "type": 9,
                    "components": [{"type": 10, "content": "Your turn"}],
                    "accessory": {"type": 2, "style": 1, "label": "Play", "custom_id": "p"},
                },
            ],
        }
    ]
    html = render_message(message(components=comps, flags=1 << 15), CTX)
    assert "border-left-color:#ff0000" in html and "<strong>Table</strong>" in html
    assert '<hr class="separator">' in html and 'data-custom-id="p"' in html


def test_modal_fields_keep_required_and_lengths() -> None:
    modal = {
        "custom_id": "ask",
        "title": "Ask the committee",
        "components": [
            {
                "type": 1,
                "components": [
                    {
                        "type": 4,
                        "custom_id": "reps",
                        "label": "Reps",
                        "style": 1,
                        "min_length": 1,
                        "max_length": 3,
                    }
                ],
            },
            {
                "type": 18,
                "label": "Why",
                "component": {"type": 4, "custom_id": "why", "style": 2, "required": False},
            },
        ],
    }
    html = render_modal(modal, CTX, 555)
    assert 'data-custom-id="ask" data-interaction-id="555"' in html
    assert (
        '<input type="text" name="reps" id="f-reps" required minlength="1" maxlength="3" value="">'
        in html
    )
    assert '<textarea name="why" id="f-why" rows="4"></textarea>' in html
    assert "Ask the committee" in html
