/// Where the store lives when `--store` is not given.
enum DefaultStore {
    /// `$LARDER_STORE`, else `$XDG_CACHE_HOME/larder`, else `~/.cache/larder`.
    static func path(environment: [String: String]) -> String? {
        if let explicit = environment["LARDER_STORE"], !explicit.isEmpty { return explicit }
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty { return xdg + "/larder" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.cache/larder" }
        return nil
    }
}
