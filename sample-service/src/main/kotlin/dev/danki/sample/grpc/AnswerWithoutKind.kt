package dev.danki.sample.grpc

/** An answer whose `kind` oneof was left unset: the sheet cannot be scored, so the call is INVALID_ARGUMENT. */
class AnswerWithoutKind(
    questionId: Int,
) : IllegalArgumentException(
        "answer to question $questionId: no kind (single, multiple, trueFalse, numeric, text or ordering)",
    )
