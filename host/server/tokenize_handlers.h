// llama-server's tokenizer routes, for clients that count or inspect tokens
// with the served model's own vocabulary:
//   POST /tokenize   {"content", "add_special" (false), "parse_special" (true),
//                     "with_pieces" (false)} -> {"tokens": [ids]}, or with
//                     pieces [{"id", "piece"}] (piece: the text, or its byte
//                     values when they are not valid UTF-8 on their own)
//   POST /detokenize {"tokens": [ids]} -> {"content": text}
// Errors in the worker's own shape ({"code","message","retriable","field"}).
// Neither text nor ids are logged.
#ifndef ORCD_HOST_SERVER_TOKENIZE_HANDLERS_H_
#define ORCD_HOST_SERVER_TOKENIZE_HANDLERS_H_

#include <Poco/Net/HTTPRequestHandler.h>

#include <string>

#include "host/server/worker_state.h"

namespace orcd {

// A handler for /tokenize or /detokenize, or nullptr for another path.
Poco::Net::HTTPRequestHandler* CreateTokenizeHandler(WorkerState& state, const std::string& path);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_TOKENIZE_HANDLERS_H_
