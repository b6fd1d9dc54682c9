"""``memory://`` mailboxes belong to a ``MailboxClient``, not to the process: within one
client (the context's, or one opened with ``with MailboxClient():``) a name is one mailbox,
reachable from the threads the context starts; another client has its own."""
from __future__ import annotations

import asyncio

from tasks.api.eval_client import MailboxClient, mailbox_client, open_mailbox, result_mailbox
from tasks.api.mailbox_codec import JsonCodec


def test_a_name_is_one_mailbox_per_client():
    with MailboxClient() as client:
        box = open_mailbox("memory://shared", JsonCodec())
        assert mailbox_client() is client and client.open("memory://shared", JsonCodec()) is box
        with MailboxClient():
            assert open_mailbox("memory://shared", JsonCodec()) is not box
        assert open_mailbox("memory://shared", JsonCodec()) is box
        assert asyncio.run(asyncio.to_thread(open_mailbox, "memory://shared", JsonCodec())) is box
    assert MailboxClient().open("memory://shared", JsonCodec()) is not box


def test_leaving_a_client_lets_go_of_its_mailboxes():
    client = MailboxClient()
    with client:
        box = result_mailbox("memory://gone")
        assert open_mailbox("memory://gone", JsonCodec()) is box
    assert client.open("memory://gone", JsonCodec()) is not box
