"""The Orphan Test page's parts: the round a link holds, the review, the answer form, the
questions, the results and the model reviewer."""
