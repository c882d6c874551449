from gother_tui.zygote.zygote import main

main()
