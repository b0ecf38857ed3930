#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLibPQ
import LarderStorage

/// libpq, loaded when a store on PostgreSQL is first opened rather than
/// linked into larder. Linked, its 21 libraries (Kerberos, LDAP, GnuTLS…)
/// were loaded and relocated at every start: a store in a directory started
/// in 8.4 ms instead of 4.9 (median of 60 starts to a first answer), for a
/// library it never calls. Loaded here, larder also runs where libpq is not
/// installed, until a store on PostgreSQL is asked for.
///
/// The functions below shadow the header's declarations of the same names
/// (CLibPQ still gives the types and constants); each is looked up once.
enum LibPQ {
    #if canImport(Darwin)
    private static let names = ["libpq.5.dylib", "libpq.dylib"]
    #else
    private static let names = ["libpq.so.5", "libpq.so"]
    #endif

    /// libpq, or why the first name could not be loaded (the soname: the
    /// other is the -dev package's link, tried for builds of libpq elsewhere).
    nonisolated(unsafe) private static let loaded: Result<UnsafeMutableRawPointer, LoadFailure> = {
        var first: String?
        for name in names {
            if let h = dlopen(name, RTLD_NOW | RTLD_LOCAL) { return .success(h) }
            if first == nil { first = dlerror().map { String(cString: $0) } }
        }
        return .failure(LoadFailure(reason: first ?? "\(names[0]) not found"))
    }()
    struct LoadFailure: Error { let reason: String }
    /// Nil when libpq could not be loaded: `unavailable` says why.
    private static var handle: UnsafeMutableRawPointer? { try? loaded.get() }

    /// Why libpq cannot be used, or nil when it is loaded.
    static let unavailable: String? = {
        guard case .failure(let failure) = loaded else { return nil }
        return "a store on PostgreSQL needs libpq (Debian's and Ubuntu's libpq5, Fedora's libpq), which cannot be loaded: \(failure.reason)"
    }()

    /// Throws unless libpq is loaded: called before any of the functions below.
    static func require() throws(StoreError) {
        if let unavailable { throw .unavailable(path: "postgresql", reason: unavailable) }
    }

    static func function<F>(_ name: String, _: F.Type) -> F {
        guard let handle, let symbol = dlsym(handle, name) else {
            fatalError("libpq has no \(name): \(unavailable ?? "an older libpq")")
        }
        return unsafeBitCast(symbol, to: F.self)
    }
}

/// A string libpq returns (owned by libpq), or "" for none.
func cText(_ text: UnsafeMutablePointer<CChar>?) -> String {
    text.map { String(cString: $0) } ?? ""
}

typealias PGPointer = OpaquePointer?
typealias CText = UnsafePointer<CChar>?
typealias CTextArray = UnsafePointer<UnsafePointer<CChar>?>?

// Connections
let PQconnectStartParams = LibPQ.function("PQconnectStartParams", (@convention(c) (CTextArray, CTextArray, Int32) -> PGPointer).self)
let PQconnectPoll = LibPQ.function("PQconnectPoll", (@convention(c) (PGPointer) -> PostgresPollingStatusType).self)
let PQsetnonblocking = LibPQ.function("PQsetnonblocking", (@convention(c) (PGPointer, Int32) -> Int32).self)
let PQflush = LibPQ.function("PQflush", (@convention(c) (PGPointer) -> Int32).self)
let PQisBusy = LibPQ.function("PQisBusy", (@convention(c) (PGPointer) -> Int32).self)
let PQfinish = LibPQ.function("PQfinish", (@convention(c) (PGPointer) -> Void).self)
let PQstatus = LibPQ.function("PQstatus", (@convention(c) (PGPointer) -> ConnStatusType).self)
let PQtransactionStatus = LibPQ.function("PQtransactionStatus", (@convention(c) (PGPointer) -> PGTransactionStatusType).self)
let PQerrorMessage = LibPQ.function("PQerrorMessage", (@convention(c) (PGPointer) -> UnsafeMutablePointer<CChar>?).self)
let PQsocket = LibPQ.function("PQsocket", (@convention(c) (PGPointer) -> Int32).self)
let PQserverVersion = LibPQ.function("PQserverVersion", (@convention(c) (PGPointer) -> Int32).self)
let PQbackendPID = LibPQ.function("PQbackendPID", (@convention(c) (PGPointer) -> Int32).self)
let PQhost = LibPQ.function("PQhost", (@convention(c) (PGPointer) -> UnsafeMutablePointer<CChar>?).self)
let PQport = LibPQ.function("PQport", (@convention(c) (PGPointer) -> UnsafeMutablePointer<CChar>?).self)
let PQsetNoticeProcessor = LibPQ.function("PQsetNoticeProcessor",
    (@convention(c) (PGPointer, PQnoticeProcessor?, UnsafeMutableRawPointer?) -> PQnoticeProcessor?).self)
let PQconninfoParse = LibPQ.function("PQconninfoParse",
    (@convention(c) (CText, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutablePointer<PQconninfoOption>?).self)
let PQconninfoFree = LibPQ.function("PQconninfoFree", (@convention(c) (UnsafeMutablePointer<PQconninfoOption>?) -> Void).self)
let PQescapeIdentifier = LibPQ.function("PQescapeIdentifier", (@convention(c) (PGPointer, CText, Int) -> UnsafeMutablePointer<CChar>?).self)
let PQfreemem = LibPQ.function("PQfreemem", (@convention(c) (UnsafeMutableRawPointer?) -> Void).self)
let PQconsumeInput = LibPQ.function("PQconsumeInput", (@convention(c) (PGPointer) -> Int32).self)
let PQnotifies = LibPQ.function("PQnotifies", (@convention(c) (PGPointer) -> UnsafeMutablePointer<PGnotify>?).self)

// Statements (sent without waiting; `PostgresConnection.answer` waits for the results, within its deadline)
let PQsendQuery = LibPQ.function("PQsendQuery", (@convention(c) (PGPointer, CText) -> Int32).self)
let PQsendDescribePrepared = LibPQ.function("PQsendDescribePrepared", (@convention(c) (PGPointer, CText) -> Int32).self)

// Pipelines
let PQenterPipelineMode = LibPQ.function("PQenterPipelineMode", (@convention(c) (PGPointer) -> Int32).self)
let PQexitPipelineMode = LibPQ.function("PQexitPipelineMode", (@convention(c) (PGPointer) -> Int32).self)
let PQpipelineSync = LibPQ.function("PQpipelineSync", (@convention(c) (PGPointer) -> Int32).self)
let PQsendQueryParams = LibPQ.function("PQsendQueryParams",
    (@convention(c) (PGPointer, CText, Int32, UnsafePointer<Oid>?, CTextArray, UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32) -> Int32).self)
let PQsendPrepare = LibPQ.function("PQsendPrepare", (@convention(c) (PGPointer, CText, CText, Int32, UnsafePointer<Oid>?) -> Int32).self)
let PQsendQueryPrepared = LibPQ.function("PQsendQueryPrepared",
    (@convention(c) (PGPointer, CText, Int32, CTextArray, UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32) -> Int32).self)
let PQgetResult = LibPQ.function("PQgetResult", (@convention(c) (PGPointer) -> PGPointer).self)

// Results
let PQclear = LibPQ.function("PQclear", (@convention(c) (PGPointer) -> Void).self)
let PQresultStatus = LibPQ.function("PQresultStatus", (@convention(c) (PGPointer) -> ExecStatusType).self)
let PQresultErrorMessage = LibPQ.function("PQresultErrorMessage", (@convention(c) (PGPointer) -> UnsafeMutablePointer<CChar>?).self)
let PQresultErrorField = LibPQ.function("PQresultErrorField", (@convention(c) (PGPointer, Int32) -> UnsafeMutablePointer<CChar>?).self)
let PQntuples = LibPQ.function("PQntuples", (@convention(c) (PGPointer) -> Int32).self)
let PQnfields = LibPQ.function("PQnfields", (@convention(c) (PGPointer) -> Int32).self)
let PQnparams = LibPQ.function("PQnparams", (@convention(c) (PGPointer) -> Int32).self)
let PQparamtype = LibPQ.function("PQparamtype", (@convention(c) (PGPointer, Int32) -> Oid).self)
let PQfname = LibPQ.function("PQfname", (@convention(c) (PGPointer, Int32) -> UnsafeMutablePointer<CChar>?).self)
let PQfnumber = LibPQ.function("PQfnumber", (@convention(c) (PGPointer, CText) -> Int32).self)
let PQftype = LibPQ.function("PQftype", (@convention(c) (PGPointer, Int32) -> Oid).self)
let PQfformat = LibPQ.function("PQfformat", (@convention(c) (PGPointer, Int32) -> Int32).self)
let PQgetvalue = LibPQ.function("PQgetvalue", (@convention(c) (PGPointer, Int32, Int32) -> UnsafeMutablePointer<CChar>?).self)
let PQgetlength = LibPQ.function("PQgetlength", (@convention(c) (PGPointer, Int32, Int32) -> Int32).self)
let PQgetisnull = LibPQ.function("PQgetisnull", (@convention(c) (PGPointer, Int32, Int32) -> Int32).self)
let PQcmdStatus = LibPQ.function("PQcmdStatus", (@convention(c) (PGPointer) -> UnsafeMutablePointer<CChar>?).self)
let PQcmdTuples = LibPQ.function("PQcmdTuples", (@convention(c) (PGPointer) -> UnsafeMutablePointer<CChar>?).self)
let PQunescapeBytea = LibPQ.function("PQunescapeBytea", (@convention(c) (UnsafePointer<UInt8>?, UnsafeMutablePointer<Int>?) -> UnsafeMutablePointer<UInt8>?).self)
