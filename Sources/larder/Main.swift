@main enum Main { static func main() {} }
